// A manifest entry: how STATE's tail (and a SEG item that a spill moved entries into) lists one
// append's run of batches for one partition. An append writes its entry before it knows its base
// offset (DynamoDB assigns it: append.ts), so an entry has none: entries are listed in offset
// order from a known base (STATE's tailBase, or the SEG item's base), each starting where the one
// before ends. Entries are short strings, so that STATE, rewritten by every append, stays small:
//
//   <count>,<position>,<size>,<createdAt>,<createdAt - minTimestamp>,<maxTimestamp - createdAt>,<object>
//
// where <object> is `i<16 hex>` for the intake object `<ms>-<16 hex>` written at createdAt
// (segment-name.ts), or `k<object key>` for any other key. An entry is unique: its object key is
// unique to one request, which is how an append whose reply was lost finds out that it landed.
import type { SluiceContext } from '../context.js';
import type { ManifestEntry, ManifestRange, MergedSegmentItem, SegmentItem } from '../metadata/types.js';
import { intakeObjectKey, parseIntakeObjectKey } from './segment-name.js';

/** One partition's run in an object, before it has offsets. */
export interface EntryInput {
  readonly count: number;
  readonly objectKey: string;
  readonly position: number;
  readonly size: number;
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
  readonly createdAt: number;
}

/** The only maker of a ManifestEntry. */
export function encodeEntry(ctx: SluiceContext, entry: EntryInput): ManifestEntry {
  const { count, position, size, createdAt, minTimestamp, maxTimestamp, objectKey } = entry;
  for (const n of [count, position, size, createdAt]) {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`bad manifest entry field ${n}`);
  }
  if (count < 1) throw new RangeError('a manifest entry holds at least one record');
  const intake = parseIntakeObjectKey(ctx.prefix, objectKey);
  const ref = intake && intake.ms === createdAt ? `i${intake.id}` : `k${objectKey}`;
  return `${count},${position},${size},${createdAt},${createdAt - minTimestamp},${maxTimestamp - createdAt},${ref}` as ManifestEntry;
}

/** The entry's record count, without decoding the rest. */
export function entryCount(entry: ManifestEntry): number {
  return Number(entry.slice(0, entry.indexOf(',')));
}

/** Records the entries hold together. */
export function entriesCount(entries: readonly ManifestEntry[]): number {
  let n = 0;
  for (const e of entries) n += entryCount(e);
  return n;
}

export function decodeEntry(ctx: SluiceContext, baseOffset: number, entry: ManifestEntry): ManifestRange {
  const fields = entry.split(',', 6);
  const ref = entry.slice(fields.reduce((n, f) => n + f.length + 1, 0));
  const [count, position, size, createdAt, minDelta, maxDelta] = fields.map(Number);
  if (
    fields.length !== 6 ||
    ref.length < 2 ||
    [count, position, size, createdAt].some((n) => !Number.isSafeInteger(n) || n < 0) ||
    count < 1 ||
    !Number.isSafeInteger(minDelta) ||
    !Number.isSafeInteger(maxDelta)
  ) {
    throw new RangeError(`bad manifest entry '${entry}'`);
  }
  let objectKey: string;
  if (ref[0] === 'i') objectKey = intakeObjectKey(ctx.prefix, createdAt, ref.slice(1));
  else if (ref[0] === 'k') objectKey = ref.slice(1);
  else throw new RangeError(`bad manifest entry object reference in '${entry}'`);
  return {
    baseOffset,
    lastOffset: baseOffset + count - 1,
    count,
    objectKey,
    position,
    size,
    minTimestamp: createdAt - minDelta,
    maxTimestamp: createdAt + maxDelta,
    createdAt,
    intake: true,
  };
}

/** The entries as ranges, the first at `baseOffset`, each after the one before. */
export function decodeEntries(ctx: SluiceContext, baseOffset: number, entries: readonly ManifestEntry[]): ManifestRange[] {
  const ranges: ManifestRange[] = [];
  let base = baseOffset;
  for (const e of entries) {
    const range = decodeEntry(ctx, base, e);
    ranges.push(range);
    base += range.count;
  }
  return ranges;
}

/** The range holding `offset`, if any (ranges in offset order). */
export function rangeHolding<R extends ManifestRange>(ranges: readonly R[], offset: number): R | undefined {
  return ranges.find((r) => r.baseOffset <= offset && offset <= r.lastOffset);
}

/** The ranges a SEG item stands for: its spilled entries, or the merged segment's one range. */
export function rangesOf(ctx: SluiceContext, item: SegmentItem): ManifestRange[] {
  return item.entries ? decodeEntries(ctx, item.baseOffset, item.entries) : [segmentRange(item)];
}

/** A merged segment's bytes as a range: its own object, its batches stamped already. */
export function segmentRange(item: MergedSegmentItem): ManifestRange {
  const { baseOffset, lastOffset, count, objectKey, position, size, indexKey, timeIndexKey, minTimestamp, maxTimestamp, createdAt } = item;
  const range = { baseOffset, lastOffset, count, objectKey, position, size, indexKey, timeIndexKey, minTimestamp, maxTimestamp, createdAt, intake: false };
  return item.cleanedThrough === undefined ? range : { ...range, cleaned: true };
}
