// Settling one batch, as Lambda's event source mappings do for Kinesis and Kafka, until each of
// its records is delivered or given up to onFailure:
//
//   - records older than maximumRecordAgeMs (by their timestamp) are given up before any attempt
//     (condition RecordAgeExceeded);
//   - a success without item failures delivers the batch;
//   - a partial batch response (ReportBatchItemFailures) delivers the records below the lowest
//     failed offset; the rest is retried as a failed attempt (a response naming no record of the
//     batch fails the whole batch);
//   - a failure with bisectBatchOnFunctionError splits the batch into halves, retried in order
//     (a split is not a retry: a poison record ends up alone and is then retried);
//   - otherwise the batch is retried after an exponential backoff with jitter, and after
//     maximumRetryAttempts retries its records are given up (RetryAttemptsExhausted).
//
// Records are reported delivered (or given up) strictly in order within the batch, so the caller
// may commit up to the lowest record not settled. Nothing is skipped when the caller stops
// (its lease lost, its deadline reached): the batch is abandoned and redelivered by the next holder.
import type { DecodedRecord } from '../records/index.js';
import { firstFailedOffset } from './delivery-event.js';
import type { FailureCondition } from './failure-destination.js';
import { REPORT_BATCH_ITEM_FAILURES, type SubscriptionConfig } from './subscription.js';
import type { DeliveryResult } from './targets/delivery-result.js';

export interface BatchDeliveryDeps {
  /** Delivers records (one partition's, in order) to the target. */
  invoke(records: readonly DecodedRecord[]): Promise<DeliveryResult>;
  /** Records the metadata of given-up records at onFailure (retrying until it is recorded, or throwing when the caller stops). */
  giveUp(records: readonly DecodedRecord[], condition: FailureCondition, invokeCount: number, error: string): Promise<void>;
  /** These records reached the target. */
  delivered(records: readonly DecodedRecord[]): void;
  /** A delivery failed (for metrics and logs). */
  failed(records: readonly DecodedRecord[], error: string, attempt: number): void;
  /** False once the caller must stop delivering. */
  active(): boolean;
  sleep(ms: number): Promise<void>;
  now(): number;
}

export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 200, maxMs: 30_000 };

/** Delay before retry `attempt` (1, 2, …): exponential with full jitter in its upper half. */
export function backoffDelay(backoff: Backoff, attempt: number): number {
  const cap = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(attempt - 1, 30));
  return cap / 2 + Math.random() * (cap / 2);
}

interface Pending {
  records: readonly DecodedRecord[];
  /** Failed attempts so far (invocations of these records that failed). */
  failures: number;
  invokes: number;
}

/** 'settled' when every record was delivered or given up; 'abandoned' when the caller stopped first. */
export async function deliverBatch(
  config: Pick<SubscriptionConfig, 'bisectBatchOnFunctionError' | 'functionResponseTypes' | 'maximumRetryAttempts' | 'maximumRecordAgeMs'>,
  partition: number,
  records: readonly DecodedRecord[],
  deps: BatchDeliveryDeps,
  backoff: Backoff = DEFAULT_BACKOFF,
): Promise<'settled' | 'abandoned'> {
  const partial = config.functionResponseTypes.includes(REPORT_BATCH_ITEM_FAILURES);
  const queue: Pending[] = [{ records, failures: 0, invokes: 0 }];
  while (queue.length > 0) {
    if (!deps.active()) return 'abandoned';
    const item = queue[0];
    if (config.maximumRecordAgeMs >= 0) {
      const now = deps.now();
      const expired = item.records.filter((r) => now - r.timestamp > config.maximumRecordAgeMs);
      if (expired.length > 0) {
        // Records are settled in order: those before the first expired one are delivered first.
        const first = item.records.indexOf(expired[0]);
        if (first > 0) {
          queue.splice(0, 1, { ...item, records: item.records.slice(0, first) }, { ...item, records: item.records.slice(first) });
          continue;
        }
        const run = takeWhile(item.records, (r) => now - r.timestamp > config.maximumRecordAgeMs);
        await deps.giveUp(run, 'RecordAgeExceeded', item.invokes, `record older than maximumRecordAgeMs ${config.maximumRecordAgeMs}`);
        if (run.length === item.records.length) queue.shift();
        else item.records = item.records.slice(run.length);
        continue;
      }
    }
    item.invokes++;
    const result = await deps.invoke(item.records);
    let error: string;
    let retry = item.records;
    let partialFailure = false;
    if (result.ok) {
      const first = partial ? firstFailedOffset(result.response, partition, new Set(item.records.map((r) => r.offset))) : undefined;
      if (first === undefined) {
        deps.delivered(item.records);
        queue.shift();
        continue;
      }
      if (first === 'invalid') {
        error = `invalid batchItemFailures in the response: ${JSON.stringify(result.response).slice(0, 200)}`;
      } else {
        const at = item.records.findIndex((r) => r.offset === first);
        if (at > 0) deps.delivered(item.records.slice(0, at));
        retry = item.records.slice(at);
        partialFailure = true;
        error = `batchItemFailures from offset ${first}`;
      }
    } else {
      error = result.error;
    }
    item.failures++;
    deps.failed(retry, error, item.failures);
    // A partial response says which records failed: retried as they are, never split.
    if (config.bisectBatchOnFunctionError && !partialFailure && retry.length > 1) {
      const half = Math.ceil(retry.length / 2);
      queue.splice(0, 1, { records: retry.slice(0, half), failures: 0, invokes: item.invokes }, { records: retry.slice(half), failures: 0, invokes: item.invokes });
      continue;
    }
    if (config.maximumRetryAttempts >= 0 && item.failures > config.maximumRetryAttempts) {
      await deps.giveUp(retry, 'RetryAttemptsExhausted', item.invokes, error);
      queue.shift();
      continue;
    }
    item.records = retry;
    await deps.sleep(backoffDelay(backoff, item.failures));
  }
  return 'settled';
}

function takeWhile<T>(items: readonly T[], keep: (item: T) => boolean): T[] {
  const out: T[] = [];
  for (const item of items) {
    if (!keep(item)) break;
    out.push(item);
  }
  return out;
}
