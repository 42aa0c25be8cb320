// What a target receives, and what it may answer.
//
// The event has the shape of the event Lambda builds for an Amazon MSK or self-managed Kafka
// trigger, so a handler written for those needs at most its event-source check changed:
//
//   { "eventSource": "sluice:kafka", "eventSourceArn": "sluice:subscription/<name>",
//     "subscription": "<name>",
//     "records": { "<topic>-<partition>": [ { "topic", "partition", "offset", "timestamp",
//        "timestampType": "CREATE_TIME", "key": "<base64>", "value": "<base64>",
//        "headers": [ { "<header key>": [<byte>, …] } ] } ] } }
//
// (`key` and `value` are absent for a null key or value.) One batch holds records of one partition.
//
// With `functionResponseTypes: ['ReportBatchItemFailures']` the target may answer
// `{ "batchItemFailures": [ { "itemIdentifier": "<partition>@<offset>" } ] }`: as for Lambda's
// Kinesis and Kafka triggers, an answer without failures (or without the field) is a success, the
// records from the lowest failed offset on are retried, and an identifier that names no record of
// the batch fails the whole batch. The offset alone (`"<offset>"`, like a Kinesis sequence number)
// is accepted too.
import type { DecodedRecord } from '../records/index.js';

export const EVENT_SOURCE = 'sluice:kafka';

export interface KafkaEventRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly timestampType: 'CREATE_TIME';
  readonly key?: string;
  readonly value?: string;
  readonly headers: readonly Readonly<Record<string, number[]>>[];
}

export interface SubscriptionEvent {
  readonly eventSource: typeof EVENT_SOURCE;
  readonly eventSourceArn: string;
  readonly subscription: string;
  readonly records: Readonly<Record<string, readonly KafkaEventRecord[]>>;
}

/** The event of one batch: records of `partition` of `topic`, in offset order. */
export function buildEvent(subscription: string, topic: string, partition: number, records: readonly DecodedRecord[]): SubscriptionEvent {
  return {
    eventSource: EVENT_SOURCE,
    eventSourceArn: `sluice:subscription/${subscription}`,
    subscription,
    records: {
      [`${topic}-${partition}`]: records.map((r) => ({
        topic,
        partition,
        offset: r.offset,
        timestamp: r.timestamp,
        timestampType: 'CREATE_TIME',
        ...(r.key !== null ? { key: r.key.toString('base64') } : {}),
        ...(r.value !== null ? { value: r.value.toString('base64') } : {}),
        headers: r.headers.map((h) => ({ [h.key]: h.value === null ? [] : [...h.value] })),
      })),
    },
  };
}

/** The identifier a target names a failed record by. */
export function itemIdentifier(partition: number, offset: number): string {
  return `${partition}@${offset}`;
}

/**
 * The lowest offset a partial batch response reports failed: undefined when nothing failed,
 * 'invalid' when the answer names something that is not a record of the batch (the whole batch
 * is then retried, as Lambda does).
 */
export function firstFailedOffset(response: unknown, partition: number, offsets: ReadonlySet<number>): number | undefined | 'invalid' {
  if (typeof response !== 'object' || response === null || !('batchItemFailures' in response)) return undefined;
  const failures = (response as { batchItemFailures: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return undefined;
  if (!Array.isArray(failures)) return 'invalid';
  let lowest: number | undefined;
  for (const failure of failures) {
    const id = typeof failure === 'object' && failure !== null ? (failure as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    const offset = parseIdentifier(id, partition);
    if (offset === undefined || !offsets.has(offset)) return 'invalid';
    lowest = lowest === undefined ? offset : Math.min(lowest, offset);
  }
  return lowest;
}

function parseIdentifier(id: unknown, partition: number): number | undefined {
  const text = typeof id === 'number' ? String(id) : id;
  if (typeof text !== 'string') return undefined;
  const m = /^(?:(\d+)@)?(\d+)$/.exec(text.trim());
  if (!m || (m[1] !== undefined && Number(m[1]) !== partition)) return undefined;
  const offset = Number(m[2]);
  return Number.isSafeInteger(offset) ? offset : undefined;
}
