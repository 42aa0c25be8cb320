// A history of operations against the HTTP service, Jepsen style: every request one client made,
// with its invoke and completion time (monotonic, ms) and its outcome:
//   ok    the service answered 2xx
//   fail  definitely not applied: a 4xx refusal, or the connection was refused (never reached)
//   info  unknown: a 5xx/429 (REQUEST_TIMED_OUT, THROTTLING, UNKNOWN_SERVER_ERROR: the service may
//         have applied it), a reset connection or a timeout
// `server` names the process that served the request (several may share one store).
import { performance } from 'node:perf_hooks';

export type Outcome = 'ok' | 'fail' | 'info';

export interface ProduceOp {
  readonly kind: 'produce';
  readonly client: number;
  readonly partition: number;
  readonly values: readonly string[];
  readonly idempotent: boolean;
  readonly server?: number;
  readonly invoke: number;
  complete: number;
  outcome: Outcome;
  baseOffset?: number;
  /** The error code of a refusal (or the connection error). */
  error?: string;
}

export interface FetchOp {
  readonly kind: 'fetch';
  readonly client: number;
  readonly partition: number;
  readonly offset: number;
  readonly server?: number;
  readonly invoke: number;
  complete: number;
  outcome: Outcome;
  records?: { offset: number; value: string }[];
  highWatermark?: number;
  error?: string;
}

export type HistoryOp = ProduceOp | FetchOp;

export class History {
  readonly ops: HistoryOp[] = [];

  /** Runs one HTTP request, recording it. */
  async call(
    op: Omit<ProduceOp, 'complete' | 'outcome' | 'invoke'> | Omit<FetchOp, 'complete' | 'outcome' | 'invoke'>,
    send: () => Promise<Response>,
  ): Promise<HistoryOp> {
    const entry = { ...op, invoke: performance.now(), complete: Number.NaN, outcome: 'info' } as HistoryOp;
    this.ops.push(entry);
    try {
      const res = await send();
      const text = await res.text();
      entry.complete = performance.now();
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      if (res.status >= 200 && res.status < 300) {
        entry.outcome = 'ok';
        if (entry.kind === 'produce') entry.baseOffset = (body.offsets as { baseOffset: number }[])[0].baseOffset;
        else {
          entry.records = (body.records as { offset: number; value: string }[]).map((r) => ({ offset: r.offset, value: r.value }));
          entry.highWatermark = body.highWatermark as number;
        }
      } else {
        entry.outcome = res.status >= 500 || res.status === 429 ? 'info' : 'fail';
        entry.error = `${res.status} ${(body.error as { code?: string } | undefined)?.code}`;
      }
    } catch (e) {
      entry.complete = performance.now();
      const code = (e as { cause?: { code?: string } }).cause?.code;
      // Refused: the request never reached a server. Anything else may have been applied.
      entry.outcome = code === 'ECONNREFUSED' ? 'fail' : 'info';
      entry.error = code ?? String(e);
    }
    return entry;
  }
}
