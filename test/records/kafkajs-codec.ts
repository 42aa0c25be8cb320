// kafkajs's RecordBatch encoder and decoder (an independent implementation of the same format),
// adapted to Sluice's record shapes for cross-checking. kafkajs maps headers by key, so callers
// comparing bytes use unique, non-null header values.

import { createRequire } from 'node:module';
import type { RecordInput } from '../../lib/records/index.js';

const require = createRequire(import.meta.url);
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js');
const Record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder.js');
const Decoder = require('kafkajs/src/protocol/decoder.js');
const Long = require('kafkajs/src/utils/long.js');
const kafkajsCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C/index.js') as (buf: Buffer) => number;

export { kafkajsCrc32c };

export interface KafkajsBatchOptions {
  baseOffset: number;
  partitionLeaderEpoch: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  gzip: boolean;
}

export async function kafkajsEncode(records: readonly RecordInput[], options: KafkajsBatchOptions): Promise<Buffer> {
  const baseTimestamp = records[0].timestamp;
  const encoder = await RecordBatch({
    compression: options.gzip ? 1 : 0,
    firstOffset: Long.fromNumber(options.baseOffset),
    firstTimestamp: baseTimestamp,
    maxTimestamp: Math.max(...records.map((r) => r.timestamp)),
    partitionLeaderEpoch: options.partitionLeaderEpoch,
    lastOffsetDelta: records.length - 1,
    transactional: options.isTransactional,
    producerId: Long.fromNumber(options.producerId),
    producerEpoch: options.producerEpoch,
    firstSequence: options.baseSequence,
    records: records.map((r, i) =>
      Record({
        offsetDelta: i,
        timestampDelta: r.timestamp - baseTimestamp,
        key: r.key,
        value: r.value,
        headers: Object.fromEntries((r.headers ?? []).map((h) => [h.key, h.value])),
      }),
    ),
  });
  return encoder.buffer as Buffer;
}

export interface KafkajsDecodedRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[] | null>;
}

export interface KafkajsDecodedBatch {
  firstOffset: string;
  partitionLeaderEpoch: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  inTransaction: boolean;
  maxTimestamp: string;
  records: KafkajsDecodedRecord[];
}

export async function kafkajsDecode(batch: Buffer): Promise<KafkajsDecodedBatch> {
  return (await decodeBatch(new Decoder(batch))) as KafkajsDecodedBatch;
}
