// The history checker itself: fed histories with a known defect, it must report each one (and
// nothing for a clean history), so a clean report of a real run means something.
import { describe, expect, it } from 'vitest';
import { checkHistory } from './checker.js';
import type { FetchOp, HistoryOp, ProduceOp } from './history.js';

let clock = 0;
const produce = (values: string[], baseOffset: number | undefined, at: { invoke?: number; complete?: number } = {}, outcome: ProduceOp['outcome'] = 'ok', error?: string): ProduceOp => {
  const invoke = at.invoke ?? ++clock;
  return { kind: 'produce', client: 0, partition: 0, values, idempotent: false, invoke, complete: at.complete ?? invoke + 0.5, outcome, baseOffset, error };
};
const fetchOp = (offset: number, records: string[], highWatermark: number, at: { invoke: number; complete: number }): FetchOp => ({
  kind: 'fetch',
  client: 1,
  partition: 0,
  offset,
  invoke: at.invoke,
  complete: at.complete,
  outcome: 'ok',
  records: records.map((value, i) => ({ offset: offset + i, value })),
  highWatermark,
});
const check = (ops: HistoryOp[], log: string[]) => checkHistory(ops, new Map([[0, log]])).errors;

describe('the history checker', () => {
  const a = produce(['a:0', 'a:1'], 0, { invoke: 1, complete: 2 });
  const b = produce(['b:0'], 2, { invoke: 3, complete: 4 });
  const clean = [a, b, fetchOp(0, ['a:0', 'a:1'], 3, { invoke: 5, complete: 6 }), fetchOp(2, ['b:0'], 3, { invoke: 7, complete: 8 })];

  it('accepts a clean history', () => {
    expect(check(clean, ['a:0', 'a:1', 'b:0'])).toEqual([]);
  });

  it('reports an acknowledged record missing from the final log', () => {
    expect(check(clean, ['a:0', 'a:1']).join('\n')).toMatch(/acknowledged b:0 at 2, final log has it at undefined/);
  });

  it('reports a duplicate', () => {
    expect(check(clean, ['a:0', 'a:1', 'b:0', 'b:0']).join('\n')).toMatch(/b:0 duplicated at 2 and 3/);
  });

  it('reports an acknowledgement out of order', () => {
    // b was sent after a was acknowledged, yet sits before it.
    const early = produce(['a:0', 'a:1'], 1, { invoke: 1, complete: 2 });
    const late = produce(['b:0'], 0, { invoke: 3, complete: 4 });
    expect(check([early, late], ['b:0', 'a:0', 'a:1']).join('\n')).toMatch(/a:0 acknowledged before b:0 was sent, but at 1 >= 0/);
  });

  it('orders a re-sent idempotent batch by its first sending', () => {
    // i was sent (outcome unknown: it landed), then c was acknowledged, then i re-sent and answered
    // with its original offset, before c's.
    const first = { ...produce(['i:0'], undefined, { invoke: 1, complete: 5 }, 'info', '503 REQUEST_TIMED_OUT'), idempotent: true };
    const c = produce(['c:0'], 1, { invoke: 2, complete: 3 });
    const resent = { ...produce(['i:0'], 0, { invoke: 6, complete: 7 }), idempotent: true };
    expect(check([first, c, resent], ['i:0', 'c:0'])).toEqual([]);
    // Without the first sending, that order would be wrong.
    expect(check([c, resent], ['i:0', 'c:0']).join('\n')).toMatch(/c:0 acknowledged before i:0 was sent/);
  });

  it('reports a high watermark going backwards between fetches', () => {
    const backwards = [a, b, fetchOp(0, ['a:0', 'a:1', 'b:0'], 3, { invoke: 5, complete: 6 }), fetchOp(0, ['a:0', 'a:1'], 2, { invoke: 7, complete: 8 })];
    expect(check(backwards, ['a:0', 'a:1', 'b:0']).join('\n')).toMatch(/saw highWatermark 2, below the 3 .*reads went backwards/);
    // Overlapping fetches may see either: no error.
    const overlapping = [a, b, fetchOp(0, ['a:0', 'a:1', 'b:0'], 3, { invoke: 5, complete: 8 }), fetchOp(0, ['a:0', 'a:1'], 2, { invoke: 3.5, complete: 9 })];
    expect(check(overlapping, ['a:0', 'a:1', 'b:0'])).toEqual([]);
  });

  it('reports a high watermark covering a record sent after the fetch, and a record sent after a fetch landing below what it saw', () => {
    // c is sent at 10, after the fetch completed at 6, yet that fetch's high watermark (4) covers it.
    const c = produce(['c:0'], 3, { invoke: 10, complete: 11 });
    const early = fetchOp(0, ['a:0', 'a:1', 'b:0'], 4, { invoke: 5, complete: 6 });
    expect(check([a, b, c, early], ['a:0', 'a:1', 'b:0', 'c:0']).join('\n')).toMatch(/saw highWatermark 4, covering c:0 at 3, which was sent later/);
    // d (unknown outcome, sent at 1.5) is seen by a fetch completed at 6 (high watermark 2); e, sent at 10, must land at 2 or above.
    const d = produce(['d:0'], undefined, { invoke: 1.5, complete: 9 }, 'info', '503 REQUEST_TIMED_OUT');
    const e = produce(['e:0'], undefined, { invoke: 10, complete: 12 }, 'info', '503 REQUEST_TIMED_OUT');
    const first = produce(['a:0'], 0, { invoke: 1, complete: 2 });
    const saw = fetchOp(0, ['a:0'], 2, { invoke: 5, complete: 6 });
    expect(check([first, d, e, saw], ['a:0', 'e:0', 'd:0']).join('\n')).toMatch(/e:0 was sent after a fetch completed at 6.0 saw highWatermark 2, but landed at 1 below it/);
    expect(check([first, d, e, saw], ['a:0', 'd:0', 'e:0'])).toEqual([]);
  });

  it('reports a definitely refused batch in the log, a partial batch, uncommitted reads and a leader refusal', () => {
    const refused = produce(['c:0'], undefined, {}, 'fail', '400 INVALID_REQUEST');
    expect(check([a, refused], ['a:0', 'a:1', 'c:0']).join('\n')).toMatch(/refused c:0 .* is in the log at 2/);
    const unknown = produce(['d:0', 'd:1'], undefined, {}, 'info', '503 REQUEST_TIMED_OUT');
    expect(check([a, unknown], ['a:0', 'a:1', 'd:0', 'd:1'])).toEqual([]);
    expect(check([a, unknown], ['a:0', 'a:1'])).toEqual([]);
    expect(check([a, unknown], ['a:0', 'a:1', 'd:0']).join('\n')).toMatch(/batch d:0 not whole/);
    expect(check([a, unknown], ['a:0', 'a:1', 'd:1']).join('\n')).toMatch(/batch d:0 not whole/);
    expect(check([a], ['a:0', 'a:1', 'x']).join('\n')).toMatch(/x at 2 was never produced/);
    const dirty = fetchOp(0, ['a:0', 'a:1', 'z'], 3, { invoke: 5, complete: 6 });
    expect(check([a, dirty], ['a:0', 'a:1']).join('\n')).toMatch(/fetch returned z at 2; final log has undefined/);
    const stale = fetchOp(0, ['a:0'], 1, { invoke: 5, complete: 6 });
    expect(check([a, stale], ['a:0', 'a:1']).join('\n')).toMatch(/saw highWatermark 1 below a:0 acknowledged earlier/);
    const leader = produce(['e:0'], undefined, {}, 'info', '503 NOT_LEADER_OR_FOLLOWER');
    expect(check([a, leader], ['a:0', 'a:1']).join('\n')).toMatch(/NOT_LEADER_OR_FOLLOWER: appends have no leader/);
  });
});
