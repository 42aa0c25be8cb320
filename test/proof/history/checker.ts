// Checks a recorded History against the final log of each partition (read after the run): the
// log is linearizable as a per-partition append-only sequence.
//   1. acknowledged ⇒ present: every ok produce's values are at its baseOffset, in order;
//   2. nothing definitely refused is present; an unknown (info) produce is present whole or not at
//      all; nothing present was never produced;
//   3. no duplicates: no value appears twice (idempotent retries re-send the same values);
//   4. order = acknowledgement order: if A completed before B was first sent, A's offset < B's
//      (also for unknown produces that landed: everything acknowledged before they were sent precedes
//      them; a batch re-sent by an idempotent producer counts from its first sending);
//   5. fetches never show uncommitted data: every record a fetch returned is, in the final log, at
//      that offset with that value; a fetch sees every append acknowledged before it was invoked
//      (its high watermark is at least that append's end) and none invoked after it completed;
//   6. reads never go backwards: a fetch invoked after another fetch of the partition completed
//      (any client, any server) never answers a lower high watermark; a fetch's high watermark
//      covers only records sent before it completed; and a produce sent after a fetch completed
//      lands at or above that fetch's high watermark (what a read observed precedes later writes);
//   7. the leaderless protocol has no partition leader for appends: no produce is refused with
//      NOT_LEADER_OR_FOLLOWER.
import type { FetchOp, HistoryOp, ProduceOp } from './history.js';

export interface CheckReport {
  readonly errors: string[];
  readonly counts: Record<string, number>;
}

export function checkHistory(ops: readonly HistoryOp[], finalLogs: ReadonlyMap<number, readonly string[]>): CheckReport {
  const errors: string[] = [];
  const fail = (m: string) => errors.length < 50 && errors.push(m);
  const counts: Record<string, number> = { produceOk: 0, produceFail: 0, produceInfo: 0, produceInfoLanded: 0, fetchOk: 0, recordsFetched: 0 };
  for (const op of ops) {
    if (op.kind === 'produce' && String(op.error).includes('NOT_LEADER_OR_FOLLOWER')) fail(`p${op.partition}: produce ${op.values[0]} refused with ${op.error}: appends have no leader`);
  }

  for (const [partition, log] of finalLogs) {
    const offsetOf = new Map<string, number>();
    log.forEach((v, i) => {
      if (offsetOf.has(v)) fail(`p${partition}: ${v} duplicated at ${offsetOf.get(v)} and ${i}`);
      else offsetOf.set(v, i);
    });
    const produces = ops.filter((o): o is ProduceOp => o.kind === 'produce' && o.partition === partition);
    // Where each produce landed (undefined = not in the log).
    const landedAt = new Map<ProduceOp, number>();
    const produced = new Set(produces.flatMap((o) => o.values));
    log.forEach((v, i) => {
      if (!produced.has(v)) fail(`p${partition}: ${v} at ${i} was never produced`);
    });
    for (const op of produces) {
      const firstPresent = op.values.findIndex((v) => offsetOf.has(v));
      const at = firstPresent < 0 ? undefined : offsetOf.get(op.values[firstPresent])! - firstPresent;
      if (op.outcome === 'ok') {
        counts.produceOk++;
        if (at !== op.baseOffset) fail(`p${partition}: acknowledged ${op.values[0]} at ${op.baseOffset}, final log has it at ${at}`);
      } else counts[op.outcome === 'fail' ? 'produceFail' : 'produceInfo']++;
      if (at === undefined) continue;
      op.values.forEach((v, i) => {
        if (log[at + i] !== v) fail(`p${partition}: batch ${op.values[0]} not whole at ${at} (${i}: ${log[at + i]})`);
      });
      landedAt.set(op, at);
      // A definite refusal is fine when another attempt of the same (idempotent) batch landed it.
      const other = produces.some((o) => o !== op && o.values[0] === op.values[0] && o.outcome !== 'fail');
      if (op.outcome === 'fail' && !other) fail(`p${partition}: refused ${op.values[0]} (${op.error}) is in the log at ${at}`);
      if (op.outcome === 'info' && !other) counts.produceInfoLanded++;
    }
    const firstSent = new Map<string, number>();
    for (const op of produces) {
      for (const v of op.values) firstSent.set(v, Math.min(firstSent.get(v) ?? Infinity, op.invoke));
    }
    const acked = produces.filter((o) => o.outcome === 'ok').sort((a, b) => a.complete - b.complete);
    for (const b of landedAt.keys()) {
      // A batch sent more than once (an idempotent retry) may have landed by its first sending.
      const sent = firstSent.get(b.values[0])!;
      for (const a of acked) {
        if (a.complete >= sent) break;
        if (a.values[0] === b.values[0]) continue;
        if (a.baseOffset! >= landedAt.get(b)!) fail(`p${partition}: ${a.values[0]} acknowledged before ${b.values[0]} was sent, but at ${a.baseOffset} >= ${landedAt.get(b)}`);
      }
    }
    const fetches = ops.filter((o): o is FetchOp => o.kind === 'fetch' && o.partition === partition && o.outcome === 'ok');
    // Reads never go backwards: sweep fetches by invocation, knowing the highest watermark of those completed before.
    const byComplete = [...fetches].sort((a, b) => a.complete - b.complete);
    let done = 0;
    let highest: FetchOp | undefined;
    for (const g of [...fetches].sort((a, b) => a.invoke - b.invoke)) {
      for (; done < byComplete.length && byComplete[done].complete < g.invoke; done++) {
        if (!highest || byComplete[done].highWatermark! > highest.highWatermark!) highest = byComplete[done];
      }
      if (highest && g.highWatermark! < highest.highWatermark!) {
        fail(`p${partition}: a fetch invoked at ${g.invoke.toFixed(1)} saw highWatermark ${g.highWatermark}, below the ${highest.highWatermark} a fetch completed at ${highest.complete.toFixed(1)} saw (reads went backwards)`);
      }
    }
    // A high watermark is a point in the log's history: everything below it was sent before the
    // fetch completed, and everything sent after the fetch completed lands at or above it.
    const latestSentBelow: number[] = [];
    log.forEach((v, i) => latestSentBelow.push(Math.max(latestSentBelow[i - 1] ?? -Infinity, firstSent.get(v) ?? Infinity)));
    for (const f of fetches) {
      const hw = Math.min(f.highWatermark!, log.length);
      if (hw > 0 && latestSentBelow[hw - 1] > f.complete) {
        const at = latestSentBelow.findIndex((t) => t > f.complete);
        fail(`p${partition}: a fetch completed at ${f.complete.toFixed(1)} saw highWatermark ${f.highWatermark}, covering ${log[at]} at ${at}, which was sent later`);
      }
    }
    let seenBefore = 0;
    let highestSeen: FetchOp | undefined;
    for (const [b, at] of [...landedAt.entries()].sort(([x], [y]) => firstSent.get(x.values[0])! - firstSent.get(y.values[0])!)) {
      const sent = firstSent.get(b.values[0])!;
      for (; seenBefore < byComplete.length && byComplete[seenBefore].complete < sent; seenBefore++) {
        if (!highestSeen || byComplete[seenBefore].highWatermark! > highestSeen.highWatermark!) highestSeen = byComplete[seenBefore];
      }
      if (highestSeen && at < highestSeen.highWatermark!) {
        fail(`p${partition}: ${b.values[0]} was sent after a fetch completed at ${highestSeen.complete.toFixed(1)} saw highWatermark ${highestSeen.highWatermark}, but landed at ${at} below it`);
      }
    }
    for (const f of fetches) {
      counts.fetchOk++;
      for (const r of f.records!) {
        counts.recordsFetched++;
        if (log[r.offset] !== r.value) fail(`p${partition}: fetch returned ${r.value} at ${r.offset}; final log has ${log[r.offset]}`);
      }
      for (const a of acked) {
        if (a.complete >= f.invoke) break;
        if (f.highWatermark! < a.baseOffset! + a.values.length) fail(`p${partition}: fetch at ${f.invoke.toFixed(0)} saw highWatermark ${f.highWatermark} below ${a.values[0]} acknowledged earlier`);
      }
      for (const r of f.records!) {
        const sent = firstSent.get(r.value);
        if (sent === undefined || sent > f.complete) fail(`p${partition}: fetch returned ${r.value} before it was produced`);
      }
    }
  }
  return { errors, counts };
}
