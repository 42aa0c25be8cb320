// The invariants of design.md as one checker every proof test shares. A test keeps a Ledger of the
// batches it tried to append (values unique per batch, see processes.ts) with what each attempt
// was told, then asks the checker to compare the stored log with it:
//   - the visible log is dense: offsets logStartOffset, +1, ... up to highWatermark = STATE.nextOffset,
//     and the committed manifest items tile that range without gap or overlap;
//   - every acknowledged record is at its acknowledged offset (unless retention removed it);
//   - no value appears twice (a retried idempotent batch is never duplicated);
//   - a batch that was NOT acknowledged is visible only if its outcome was ambiguous (timeout,
//     throttling, 5xx, crash: the commit may have landed), and then whole and contiguous;
//   - order = acknowledgement order: a batch acknowledged before another was invoked has a lower offset.
// Group invariants: one owner per partition, assignments only to members, no offset written by a
// generation newer than the group's, and a commit from an older generation is rejected.
import { expect } from 'vitest';
import type { SluiceError } from '../../lib/api/errors.js';
import type { SluiceContext } from '../../lib/context.js';
import type { PartitionAppendResult } from '../../lib/log/append.js';
import { decodeRanges } from '../../lib/log/segment-range.js';
import { allSegmentItems } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { commitOffsets, fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { type LogRecord, readLog } from './processes.js';

/** Errors after which the batch may or may not be in the log. Every other refusal is definite. */
const AMBIGUOUS_CODES = new Set(['THROTTLING', 'REQUEST_TIMED_OUT', 'UNKNOWN_SERVER_ERROR']);

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
    expect(result.count).toBe(attempt.values.length);
    attempt.baseOffset = result.baseOffset;
    attempt.ackedAt ??= ++this.clock;
    return true;
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

export async function checkLogInvariants(ctx: SluiceContext, topic: string, partition: number, ledger: Ledger, label = topic): Promise<LogCheck> {
  const { records, logStartOffset, highWatermark } = await readLog(ctx, topic, partition);
  const state = await getPartitionState(ctx, topic, partition);
  const where = `${label} p${partition}`;
  expect(state.nextOffset, `${where}: STATE.nextOffset = high watermark`).toBe(highWatermark);
  expect(logStartOffset, `${where}: logStartOffset <= highWatermark`).toBeLessThanOrEqual(highWatermark);

  // Dense and unique offsets.
  expect(records.length, `${where}: ${records.length} records between ${logStartOffset} and ${highWatermark}`).toBe(highWatermark - logStartOffset);
  records.forEach((r, i) => expect(r.offset, `${where}: dense offsets`).toBe(logStartOffset + i));

  // Committed manifest entries (SEG items, then the ranges STATE's tail lists) tile [logStartOffset, highWatermark).
  const items: { baseOffset: number; lastOffset: number }[] = decodeRanges(ctx, topic, partition, state.tail).filter(
    (r) => r.lastOffset >= logStartOffset,
  );
  for await (const item of allSegmentItems(ctx, topic, partition)) {
    if (item.baseOffset < highWatermark && item.lastOffset >= logStartOffset) items.push(item);
  }
  items.sort((a, b) => a.baseOffset - b.baseOffset || b.lastOffset - a.lastOffset);
  if (highWatermark > logStartOffset) {
    expect(items[0]?.baseOffset, `${where}: first committed item holds logStartOffset`).toBeLessThanOrEqual(logStartOffset);
    // Items wholly inside an earlier one are compaction leftovers (replaced, not yet deleted), or
    // ranges of a tail spilled twice: readers step over them. Anything else must start right after what is covered: no gap, no overlap.
    let end = items[0].lastOffset;
    for (let i = 1; i < items.length; i++) {
      if (items[i].lastOffset <= end) continue;
      expect(items[i].baseOffset, `${where}: manifest items contiguous`).toBe(end + 1);
      end = items[i].lastOffset;
    }
    expect(end, `${where}: last committed item ends at highWatermark - 1`).toBe(highWatermark - 1);
  }

  // No duplicate values.
  const offsetOf = new Map<string, number>();
  for (const r of records) {
    expect(offsetOf.has(r.value), `${where}: value ${r.value} appears twice (at ${offsetOf.get(r.value)} and ${r.offset})`).toBe(false);
    offsetOf.set(r.value, r.offset);
  }

  const mine = ledger.attempts.filter((a) => a.partition === partition);
  const landed: Attempt[] = [];
  const explained = new Set<string>();
  for (const a of mine) {
    if (a.baseOffset !== undefined) {
      a.values.forEach((v, i) => {
        const offset = a.baseOffset! + i;
        if (offset < logStartOffset) return; // removed by retention
        expect(records[offset - logStartOffset]?.value, `${where}: acknowledged ${v} at offset ${offset}`).toBe(v);
        explained.add(v);
      });
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
  }
  for (const r of records) {
    if (!r.value.includes(':')) continue; // written outside the ledger (by the test's own set-up)
    expect(explained.has(r.value), `${where}: ${r.value} at ${r.offset} was never attempted or never landed`).toBe(true);
  }

  // Order = acknowledgement order.
  const acked = mine.filter((a) => a.ackedAt !== undefined);
  for (const a of acked) {
    for (const b of acked) {
      if (a.ackedAt! < b.invokedAt) expect(a.baseOffset!, `${where}: ${a.values[0]} acknowledged before ${b.values[0]} was sent`).toBeLessThan(b.baseOffset!);
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
