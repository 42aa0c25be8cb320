// The guarantees of RELIABILITY.md as one checker every proof test shares. A test keeps a Ledger of the
// batches it tried to append (values unique per batch, see processes.ts) with what each attempt
// was told, then asks the checker to compare the stored log with it:
//   - STATE is consistent: logStartOffset <= tailBase, tailBase + the tail's counts = logEndOffset,
//     the tail holds at most TAIL_ROOM_ENTRIES entries;
//   - the manifest (SEG items below tailBase, each standing for its spilled entries from its base or
//     for a merged segment, then STATE's tail from tailBase) tiles [logStartOffset, logEndOffset)
//     without gap or overlap; an item at or above tailBase is a pending spill: at tailBase, listing
//     a prefix of the tail;
//   - the visible log is dense: offsets logStartOffset, +1, ... up to highWatermark = STATE.logEndOffset;
//   - every acknowledged record is at its acknowledged offset (unless retention removed it);
//   - no value appears twice (a retried idempotent batch is never duplicated);
//   - a batch that was NOT acknowledged is visible only if its outcome was ambiguous (timeout,
//     throttling, 5xx, crash: the update may have landed), and then whole and contiguous;
//   - order = acknowledgement order: a batch acknowledged before another was invoked has a lower
//     offset (concurrent appends may land in either order).
// Group invariants: one owner per partition, assignments only to members, no offset written by a
// generation newer than the group's, and a commit from an older generation is rejected.
import { expect } from 'vitest';
import type { SluiceError } from '../../lib/errors.js';
import type { SluiceContext } from '../../lib/context.js';
import type { PartitionAppendResult } from '../../lib/log/append.js';
import { decodeEntries, entriesCount, rangesOf } from '../../lib/log/manifest-entry.js';
import { TAIL_ROOM_ENTRIES } from '../../lib/log/spill.js';
import { allSegmentItems } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import type { PartitionState, TopicRef } from '../../lib/metadata/types.js';
import { commitOffsets, fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { type LogRecord, readLog } from './processes.js';

/**
 * Errors after which the batch may or may not be in the log (CRASH: the test killed the process
 * mid-append, so no reply was ever given). Every other refusal is definite.
 */
export const AMBIGUOUS_CODES = new Set(['THROTTLING', 'REQUEST_TIMED_OUT', 'UNKNOWN_SERVER_ERROR', 'CRASH']);

export interface Attempt {
  readonly partition: number;
  readonly values: readonly string[];
  readonly invokedAt: number;
  ackedAt?: number;
  baseOffset?: number;
  /** Set when some attempt of this batch failed in a way that leaves its outcome unknown. */
  ambiguous: boolean;
  /** Error codes seen (for messages). */
  readonly errors: string[];
}

/** Logical clock + record of every batch attempted on one topic. */
export class Ledger {
  private clock = 0;
  readonly attempts: Attempt[] = [];

  begin(partition: number, values: readonly string[]): Attempt {
    const attempt: Attempt = { partition, values, invokedAt: ++this.clock, ambiguous: false, errors: [] };
    this.attempts.push(attempt);
    return attempt;
  }

  /** Records one reply for the batch (a retry of the same batch calls this again). Returns true when acknowledged. */
  settle(attempt: Attempt, result: PartitionAppendResult | { error: unknown }): boolean {
    if ('error' in result) {
      const code: string = (result.error as SluiceError).code ?? 'THROWN';
      attempt.errors.push(code);
      if (AMBIGUOUS_CODES.has(code) || code === 'THROWN') attempt.ambiguous = true;
      return false;
    }
    if (attempt.baseOffset !== undefined && attempt.baseOffset !== result.baseOffset) {
      throw new Error(`batch ${attempt.values[0]} acknowledged twice at different offsets: ${attempt.baseOffset} and ${result.baseOffset}`);
    }
    expect(result.count, `batch ${attempt.values[0]}: acknowledged count`).toBe(attempt.values.length);
    attempt.baseOffset = result.baseOffset;
    attempt.ackedAt ??= ++this.clock;
    return true;
  }

  /** The process serving the attempt died before answering: the batch may or may not be in the log. */
  crashed(attempt: Attempt): void {
    attempt.errors.push('CRASH');
    attempt.ambiguous = true;
  }

  acked(partition?: number): Attempt[] {
    return this.attempts.filter((a) => a.ackedAt !== undefined && (partition === undefined || a.partition === partition));
  }
}

export interface LogCheck {
  readonly records: LogRecord[];
  readonly logStartOffset: number;
  readonly highWatermark: number;
  /** Unacknowledged (ambiguous) batches whose commit provably landed. */
  readonly landed: Attempt[];
}

/**
 * STATE and the manifest alone (no object is read): STATE's offsets agree with its tail, and the
 * SEG items below tailBase and then the tail tile [logStartOffset, logEndOffset). Cheap enough to run
 * after every step of a model test. Returns the STATE it checked.
 */
export async function checkManifest(ctx: SluiceContext, topic: TopicRef, partition: number, label: string = topic.name): Promise<PartitionState> {
  const state = await getPartitionState(ctx, topic, partition);
  const where = `${label} p${partition}`;
  const { logStartOffset, tailBase, logEndOffset, tail } = state;
  expect(state.topicId, `${where}: STATE of topic id ${topic.id}`).toBe(topic.id);
  expect(logStartOffset, `${where}: logStartOffset ${logStartOffset} <= tailBase ${tailBase}`).toBeLessThanOrEqual(tailBase);
  expect(tailBase + entriesCount(tail), `${where}: tailBase ${tailBase} + the tail's ${tail.length} entries = logEndOffset`).toBe(logEndOffset);
  expect(tail.length, `${where}: the tail holds at most ${TAIL_ROOM_ENTRIES} entries`).toBeLessThanOrEqual(TAIL_ROOM_ENTRIES);

  // Below tailBase: the SEG items' ranges (spilled entries from each item's base, or a merged
  // segment). A merge swaps its item in before it deletes the items it replaced, so an item may
  // lie wholly inside the one before it for a while: readers take the newer. Anything else starts
  // right after what is covered.
  const below: { baseOffset: number; lastOffset: number; sk: string }[] = [];
  for await (const item of allSegmentItems(ctx, topic, partition)) {
    if (item.baseOffset >= tailBase) {
      // A pending spill (its spiller has not removed the entries yet): only at tailBase, listing a prefix of the tail.
      expect(item.baseOffset, `${where}: SEG item above tailBase ${tailBase}`).toBe(tailBase);
      expect(item.entries, `${where}: the SEG item at tailBase ${tailBase} lists spilled entries`).toBeDefined();
      expect(tail.slice(0, item.entries!.length), `${where}: the pending spill at ${tailBase} lists a prefix of the tail`).toEqual(item.entries);
      continue;
    }
    const ranges = rangesOf(ctx, item);
    expect(ranges.at(-1)!.lastOffset, `${where}: SEG item ${item.baseOffset} summary lastOffset`).toBe(item.lastOffset);
    expect(item.lastOffset, `${where}: SEG item ${item.baseOffset} (a committed item) ends below tailBase ${tailBase}`).toBeLessThan(tailBase);
    if (item.lastOffset < logStartOffset) continue; // retention's leftover (or a late spill landing there)
    for (const r of ranges) below.push({ ...r, sk: `SEG ${item.baseOffset}` });
  }
  below.sort((a, b) => a.baseOffset - b.baseOffset || b.lastOffset - a.lastOffset);
  let next = logStartOffset;
  let covered = logStartOffset - 1;
  for (const r of below) {
    if (r.lastOffset <= covered) continue;
    if (r.lastOffset < logStartOffset) continue;
    expect(Math.max(r.baseOffset, logStartOffset), `${where}: ${r.sk} range ${r.baseOffset}..${r.lastOffset}: no gap or overlap before it`).toBe(next);
    covered = r.lastOffset;
    next = covered + 1;
  }
  expect(next, `${where}: SEG items cover [${logStartOffset}, tailBase ${tailBase}) (next uncovered ${next})`).toBe(tailBase);
  // The tail: its entries from tailBase, one after another (decodeEntries checks each entry).
  const ranges = decodeEntries(ctx, tailBase, tail);
  expect((ranges.at(-1)?.lastOffset ?? tailBase - 1) + 1, `${where}: the tail ends at logEndOffset`).toBe(logEndOffset);
  return state;
}

export async function checkLogInvariants(ctx: SluiceContext, topic: TopicRef, partition: number, ledger: Ledger, label: string = topic.name): Promise<LogCheck> {
  const where = `${label} p${partition}`;
  const state = await checkManifest(ctx, topic, partition, label);
  let log: Awaited<ReturnType<typeof readLog>>;
  try {
    log = await readLog(ctx, topic, partition);
  } catch (e) {
    throw new Error(`${where}: the log is unreadable (acknowledged records lost?): ${String(e)}`, { cause: e });
  }
  const { records, logStartOffset, highWatermark } = log;
  expect(state.logEndOffset, `${where}: STATE.logEndOffset = high watermark`).toBe(highWatermark);
  expect(logStartOffset, `${where}: logStartOffset <= highWatermark`).toBeLessThanOrEqual(highWatermark);

  // Dense and unique offsets.
  expect(records.length, `${where}: ${records.length} records between ${logStartOffset} and ${highWatermark}`).toBe(highWatermark - logStartOffset);
  records.forEach((r, i) => expect(r.offset, `${where}: dense offsets`).toBe(logStartOffset + i));

  // No duplicate values.
  const offsetOf = new Map<string, number>();
  for (const r of records) {
    expect(offsetOf.has(r.value), `${where}: value ${r.value} appears twice (at ${offsetOf.get(r.value)} and ${r.offset})`).toBe(false);
    offsetOf.set(r.value, r.offset);
  }

  const mine = ledger.attempts.filter((a) => a.partition === partition);
  const landed: Attempt[] = [];
  const explained = new Set<string>();
  const landedAt = new Map<Attempt, number>();
  for (const a of mine) {
    if (a.baseOffset !== undefined) {
      a.values.forEach((v, i) => {
        const offset = a.baseOffset! + i;
        if (offset < logStartOffset) return; // removed by retention
        expect(records[offset - logStartOffset]?.value, `${where}: acknowledged ${v} at offset ${offset} (lost or moved)`).toBe(v);
        explained.add(v);
      });
      landedAt.set(a, a.baseOffset);
      continue;
    }
    const present = a.values.filter((v) => offsetOf.has(v));
    if (present.length === 0) continue;
    expect(a.ambiguous, `${where}: batch ${a.values[0]} refused definitely (${a.errors.join(',')}) but visible`).toBe(true);
    // Whole and contiguous (a prefix may have been removed by retention).
    const first = offsetOf.get(present[0])!;
    if (present.length < a.values.length) expect(first, `${where}: partial batch ${a.values[0]}`).toBe(logStartOffset);
    const skip = a.values.length - present.length;
    present.forEach((v, i) => expect(offsetOf.get(v), `${where}: batch ${a.values[0]} contiguous`).toBe(first + i));
    expect(present, `${where}: batch ${a.values[0]} is a suffix of itself`).toEqual(a.values.slice(skip));
    present.forEach((v) => explained.add(v));
    landed.push(a);
    landedAt.set(a, first - skip);
  }
  for (const r of records) {
    if (!r.value.includes(':')) continue; // written outside the ledger (by the test's own set-up)
    expect(explained.has(r.value), `${where}: ${r.value} at ${r.offset} was never attempted or never landed`).toBe(true);
  }

  // Order = acknowledgement order: whatever was acknowledged before a batch was sent lies before it.
  const acked = mine.filter((a) => a.ackedAt !== undefined);
  for (const [b, at] of landedAt) {
    for (const a of acked) {
      if (a !== b && a.ackedAt! < b.invokedAt) expect(a.baseOffset!, `${where}: ${a.values[0]} acknowledged before ${b.values[0]} was sent`).toBeLessThan(at);
    }
  }
  return { records, logStartOffset, highWatermark, landed };
}

/**
 * Group invariants on the stored META item and offsets, plus the active fencing probe: a commit
 * by a live member under `generation - 1` must be refused and must not change any offset.
 */
export async function checkGroupInvariants(ctx: SluiceContext, group: string, topic: string): Promise<void> {
  const state = await readGroup(ctx, group);
  if (!state) return;
  const owners = new Map<string, string>();
  for (const [member, assignment] of Object.entries(state.assignment)) {
    expect(state.members[member], `${group}: assignment to non-member ${member}`).toBeDefined();
    for (const [t, partitions] of Object.entries(assignment)) {
      for (const p of partitions) {
        const key = `${t}-${p}`;
        expect(owners.has(key), `${group}: ${key} assigned to ${owners.get(key)} and ${member}`).toBe(false);
        owners.set(key, member);
      }
    }
  }
  const before = await fetchCommittedOffsets(ctx, group);
  const member = Object.keys(state.members).find((m) => state.members[m].expiresAt > ctx.now());
  if (member && state.generation > 1) {
    await expect(
      commitOffsets(ctx, { group, memberId: member, generation: state.generation - 1, offsets: [{ topic, partition: 0, offset: 999_999 }] }),
      `${group}: commit from generation ${state.generation - 1} is fenced`,
    ).rejects.toMatchObject({ code: expect.stringMatching(/ILLEGAL_GENERATION|UNKNOWN_MEMBER_ID/) });
    expect(await fetchCommittedOffsets(ctx, group)).toEqual(before);
  }
}
