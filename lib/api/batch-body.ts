// The server's half of the record-batches body (the format, the media type and the frame codec are
// lib/records/batch-frames.ts, which the client shares): each produced batch checked as a Kafka
// broker's LogValidator checks a producer's batch (checkProducedBatch, which the Kafka gateway's
// Produce shares), refused as INVALID_REQUEST naming the frame, and the fetch answer of stored
// batches (RecordBatchesReply).
import {
  type BatchSummary,
  CorruptRecordError,
  DecompressedSizeError,
  type DecodedBatch,
  type RecordBatchHeader,
  UnsupportedCompressionError,
  decodeRecordBatch,
  validateRecordBatch,
} from '../records/index.js';
import { SluiceError } from '../errors.js';
import {
  HIGH_WATERMARK_HEADER,
  LOG_START_OFFSET_HEADER,
  MalformedFramesError,
  NEXT_OFFSET_HEADER,
  RECORD_BATCHES_MEDIA_TYPE,
  decodeBatchFrames,
} from '../records/batch-frames.js';

/**
 * Batch bytes per fetch response: 3/4 of the JSON response budget, since the body is sent base64.
 * A fetch stops at a batch boundary under it, but always returns at least one batch.
 */
export const MAX_BATCH_RESPONSE_BYTES = 3.75 * 1024 * 1024;

/**
 * Most bytes one produced batch may take once decompressed: the highest max.message.bytes a topic
 * may have (lib/metadata/topics.ts MAX_MESSAGE_BYTES_LIMIT). Decompression of a produced gzip batch stops
 * here, before the topic's own, possibly lower, limit is known; test/api/gzip-bomb.test.ts checks the two agree.
 */
export const MAX_DECOMPRESSED_BATCH_BYTES = 4 * 1024 * 1024;

/** One frame of a produce body, checked once (every record walked, none decoded: the bytes are what is stored). */
export interface BatchFrame {
  readonly partition: number;
  /** The RecordBatch bytes as sent (a view of the request body). */
  readonly bytes: Buffer;
  readonly header: RecordBatchHeader;
  readonly minTimestamp: number;
  /**
   * What max.message.bytes is checked against: the larger of the batch as sent and as decompressed.
   * A reader (a JSON fetch, a consumer) holds the decompressed records, so a limit on the compressed
   * size alone would let 65 KB of gzip store a 64 MiB record that no fetch could ever return.
   */
  readonly size: number;
}

function invalid(message: string, details: Record<string, unknown> = {}): SluiceError {
  return new SluiceError('INVALID_REQUEST', message, details);
}

/** A produced batch that passed every check: what the append needs of it. */
export interface CheckedBatch {
  readonly header: RecordBatchHeader;
  readonly minTimestamp: number;
  /** The larger of the batch as sent and as decompressed (BatchFrame.size). */
  readonly size: number;
}

/**
 * Why a produced batch is refused, in Kafka's terms: `corrupt` (CRC-32C, structure, a record that
 * does not decode: Kafka's CORRUPT_MESSAGE), `compression` (a codec Sluice does not decode: Kafka's
 * UNSUPPORTED_COMPRESSION_TYPE), `producer-rule` (it decodes but no producer may send it: Kafka's
 * INVALID_RECORD), `too-large` (it decompresses past every topic's max.message.bytes).
 */
export type BatchFault = 'corrupt' | 'compression' | 'producer-rule' | 'too-large';

/** A produced batch refused by checkProducedBatch; `message` says what is wrong, without where it was. */
export class ProducedBatchError extends Error {
  constructor(
    readonly fault: BatchFault,
    message: string,
    /** The limit a `too-large` batch passed. */
    readonly limit?: number,
  ) {
    super(message);
    this.name = 'ProducedBatchError';
  }
}

/**
 * Checks one produced RecordBatch as a Kafka broker's LogValidator checks a producer's batch:
 * it must decode (CRC, structure, every record) and follow the rules of lib/records/batch-frames.ts.
 * Shared by the record-batches body (readBatchFrames) and the Kafka gateway's Produce.
 * @throws ProducedBatchError
 */
export function checkProducedBatch(bytes: Buffer): CheckedBatch {
  // Validated without decoding: the same checks as decodeRecordBatch (CRC-32C, structure, every
  // record), no object per record. A batch the producer rules refuse is decoded again on that
  // rare path, so the refusal names the record at fault.
  const limits = { maxDecompressedBytes: MAX_DECOMPRESSED_BATCH_BYTES };
  const summary = decoding(() => validateRecordBatch(bytes, 0, limits));
  if (!obeysProducerRules(summary)) checkProducerBatch(decoding(() => decodeRecordBatch(bytes, 0, limits)));
  return { header: summary.header, minTimestamp: summary.minTimestamp, size: Math.max(bytes.length, summary.decompressedSizeInBytes) };
}

/**
 * Splits a produce body into frames and checks each batch (checkProducedBatch): the whole body
 * must be frames. Throws INVALID_REQUEST naming the frame, or MESSAGE_TOO_LARGE for a batch that
 * inflates past every topic's limit, as the topic's own check would.
 */
export function readBatchFrames(body: Buffer): BatchFrame[] {
  const frames: BatchFrame[] = [];
  try {
    for (const { frame, position, partition, bytes } of decodeBatchFrames(body)) {
      const at = `frame ${frame} (byte ${position}), partition ${partition}`;
      let checked: CheckedBatch;
      try {
        checked = checkProducedBatch(bytes);
      } catch (e) {
        if (!(e instanceof ProducedBatchError)) throw e;
        if (e.fault === 'too-large') {
          throw new SluiceError('MESSAGE_TOO_LARGE', `${at}: ${e.message}`, { frame, partition, maxMessageBytes: e.limit });
        }
        throw invalid(`${at}: ${e.message}`, e.fault === 'producer-rule' ? { frame } : { frame, partition });
      }
      frames.push({ partition, bytes, ...checked });
    }
  } catch (e) {
    if (e instanceof MalformedFramesError) throw invalid(e.message, e.partition === undefined ? { frame: e.frame } : { frame: e.frame, partition: e.partition });
    throw e;
  }
  return frames;
}

/** Runs a codec call, turning its errors into the batch's ProducedBatchError. */
function decoding<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof DecompressedSizeError) {
      throw new ProducedBatchError('too-large', `the batch decompresses to more than ${e.limit} bytes, the largest max.message.bytes`, e.limit);
    }
    if (e instanceof UnsupportedCompressionError) throw new ProducedBatchError('compression', e.message);
    if (e instanceof CorruptRecordError) throw new ProducedBatchError('corrupt', e.message);
    throw e;
  }
}

/** Whether a validated batch follows every rule checkProducerBatch enforces (the fast path). */
function obeysProducerRules({ header, minTimestamp, offsetsDense }: BatchSummary): boolean {
  return (
    header.baseOffset === 0 &&
    !header.isTransactional &&
    !header.isControl &&
    header.timestampType === 'CreateTime' &&
    header.recordCount > 0 &&
    header.lastOffsetDelta === header.recordCount - 1 &&
    offsetsDense &&
    minTimestamp >= 0
  );
}

/** The rules a producer's batch must follow beyond decoding; throws the producer-rule fault naming what broke one. */
function checkProducerBatch({ header, records }: DecodedBatch): void {
  const fail = (why: string) => new ProducedBatchError('producer-rule', why);
  if (header.baseOffset !== 0) throw fail(`baseOffset is ${header.baseOffset}; a producer sends 0`);
  if (header.isTransactional || header.isControl) throw fail('transactional and control batches are not supported');
  if (header.timestampType !== 'CreateTime') throw fail('a producer batch must use CreateTime timestamps');
  if (header.recordCount === 0) throw fail('the batch has no records');
  if (header.lastOffsetDelta !== header.recordCount - 1) {
    throw fail(`lastOffsetDelta ${header.lastOffsetDelta} does not match ${header.recordCount} records (offsets must be 0..count-1)`);
  }
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r.offset !== i) throw fail(`record ${i} has offsetDelta ${r.offset}; offsets must be 0..count-1`);
    if (r.timestamp < 0) throw fail(`record ${i} has a negative timestamp ${r.timestamp}`);
  }
  // obeysProducerRules and this function disagree: a bug, never a client's fault.
  throw new Error('batch refused by the fast producer check but not by the full one');
}

/**
 * A fetch answered with record batches. The router sends it as the binary body with the numbers in
 * headers over HTTP (toHttp), and as JSON with the bytes in base64 by direct invoke (toInvoke).
 */
export class RecordBatchesReply {
  constructor(
    /** Whole stored batches in offset order. */
    readonly batches: readonly Buffer[],
    readonly nextOffset: number,
    readonly highWatermark: number,
    readonly logStartOffset: number,
  ) {}

  get bytes(): Buffer {
    return this.batches.length === 1 ? this.batches[0] : Buffer.concat(this.batches);
  }

  toHttp(): { headers: Record<string, string>; body: Buffer } {
    return {
      headers: {
        'content-type': RECORD_BATCHES_MEDIA_TYPE,
        [NEXT_OFFSET_HEADER]: String(this.nextOffset),
        [HIGH_WATERMARK_HEADER]: String(this.highWatermark),
        [LOG_START_OFFSET_HEADER]: String(this.logStartOffset),
      },
      body: this.bytes,
    };
  }

  toInvoke(): { batches: string; nextOffset: number; highWatermark: number; logStartOffset: number } {
    return { batches: this.bytes.toString('base64'), nextOffset: this.nextOffset, highWatermark: this.highWatermark, logStartOffset: this.logStartOffset };
  }
}
