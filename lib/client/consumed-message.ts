// A fetched record as the consumer hands it to user code (kafkajs' KafkaMessage, numeric offsets):
// bytes as Buffers — the consumer always fetches with `encoding=base64`, so binary survives —
// and headers as an object whose repeated keys become arrays.
import type { FetchedRecord } from './wire.js';

export interface ConsumedMessage {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, Buffer | null | (Buffer | null)[]>>;
}

export function decodeFetched(record: FetchedRecord): ConsumedMessage {
  const headers: Record<string, Buffer | null | (Buffer | null)[]> = {};
  for (const h of record.headers ?? []) {
    const value = h.value === null ? null : Buffer.from(h.value, 'base64');
    const seen = headers[h.key];
    if (seen === undefined) headers[h.key] = value;
    else headers[h.key] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: record.key === null || record.key === undefined ? null : Buffer.from(record.key, 'base64'),
    value: record.value === null ? null : Buffer.from(record.value, 'base64'),
    headers,
  };
}
