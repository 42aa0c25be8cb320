// A fetched record as the consumer hands it to user code (kafkajs' KafkaMessage, numeric offsets):
// bytes as Buffers — decoded from fetched RecordBatches, or from a JSON fetch with
// `encoding=base64`, so binary survives either way — and headers as an object whose repeated keys
// become arrays.
import { CorruptRecordError, type DecodeLimits, DecompressedSizeError, decodeRecordBatch } from '../records/index.js';
import { SluiceClientError } from './errors.js';
import type { FetchedRecord } from './wire.js';

export interface ConsumedMessage {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, Buffer | null | (Buffer | null)[]>>;
}

function headerObject(list: readonly { key: string; value: Buffer | null }[]): ConsumedMessage['headers'] {
  const headers: Record<string, Buffer | null | (Buffer | null)[]> = {};
  for (const h of list) {
    const seen = headers[h.key];
    if (seen === undefined) headers[h.key] = h.value;
    else headers[h.key] = Array.isArray(seen) ? [...seen, h.value] : [seen, h.value];
  }
  return headers;
}

/**
 * Default bound on what one fetched gzip batch may inflate to: twice the largest max.message.bytes
 * a topic may have (4 MiB), so every batch the server accepts decodes and a bomb does not.
 */
export const DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES = 8 * 1024 * 1024;

const DEFAULT_DECODE_LIMITS: DecodeLimits = { maxDecompressedBytes: DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES };

/**
 * The records of fetched RecordBatches at or after `offset`, each batch's CRC-32C verified as a
 * Kafka consumer verifies it (check.crcs). The first batch may start before `offset`: its earlier
 * records were consumed already and are skipped, as Kafka consumers skip them.
 */
export function decodeFetchedBatches(bytes: Buffer, offset: number, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): ConsumedMessage[] {
  const messages: ConsumedMessage[] = [];
  for (let position = 0; position < bytes.length; ) {
    let batch;
    try {
      batch = decodeRecordBatch(bytes, position, limits);
    } catch (e) {
      if (e instanceof DecompressedSizeError) {
        // Not retriable: fetching the same offset again returns the same batch.
        throw new SluiceClientError('MESSAGE_TOO_LARGE', `fetched record batch at offset ${offset}: ${e.message}`, {
          details: { maxDecompressedBytes: e.limit },
          cause: e,
        });
      }
      if (!(e instanceof CorruptRecordError)) throw e;
      throw new SluiceClientError('CORRUPT_MESSAGE', `fetched record batch at offset ${offset}: ${e.message}`, { retriable: true, cause: e });
    }
    position += batch.header.sizeInBytes;
    if (batch.header.isControl) continue;
    for (const r of batch.records) {
      if (r.offset < offset) continue;
      messages.push({ offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: headerObject(r.headers) });
    }
  }
  return messages;
}

export function decodeFetched(record: FetchedRecord): ConsumedMessage {
  const headers = headerObject((record.headers ?? []).map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value, 'base64') })));
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: record.key === null || record.key === undefined ? null : Buffer.from(record.key, 'base64'),
    value: record.value === null ? null : Buffer.from(record.value, 'base64'),
    headers,
  };
}
