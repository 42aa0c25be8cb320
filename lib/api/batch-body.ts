// The server's half of the record-batches body (the format, the media type and the frame codec are
// lib/records/batch-frames.ts, which the client shares): each produced batch checked as a Kafka
// broker's LogValidator checks a producer's batch, refused as INVALID_REQUEST naming the frame, and
// the fetch answer of stored batches (RecordBatchesReply).
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

/**
 * Splits a produce body into frames and checks each batch as a Kafka broker's LogValidator does for
 * a producer's batch: the whole body must be frames, and every batch must decode (CRC, structure)
 * and follow the rules of lib/records/batch-frames.ts. Throws INVALID_REQUEST naming the frame.
 */
export function readBatchFrames(body: Buffer): BatchFrame[] {
  const frames: BatchFrame[] = [];
  try {
    for (const { frame, position, partition, bytes } of decodeBatchFrames(body)) {
      const at = `frame ${frame} (byte ${position}), partition ${partition}`;
      // Validated without decoding: the same checks as decodeRecordBatch (CRC-32C, structure, every
      // record), no object per record. A batch the producer rules refuse is decoded again on that
      // rare path, so the refusal names the record at fault.
      const limits = { maxDecompressedBytes: MAX_DECOMPRESSED_BATCH_BYTES };
      const summary = refusingCorrupt(() => validateRecordBatch(bytes, 0, limits), at, frame, partition);
      if (!obeysProducerRules(summary)) checkProducerBatch(refusingCorrupt(() => decodeRecordBatch(bytes, 0, limits), at, frame, partition), at, frame);
      frames.push({ partition, bytes, header: summary.header, minTimestamp: summary.minTimestamp, size: Math.max(bytes.length, summary.decompressedSizeInBytes) });
    }
  } catch (e) {
    if (e instanceof MalformedFramesError) throw invalid(e.message, e.partition === undefined ? { frame: e.frame } : { frame: e.frame, partition: e.partition });
    throw e;
  }
  return frames;
}

/**
 * Runs a codec call, turning its corruption errors into the frame's INVALID_REQUEST and a batch
 * that inflates past every topic's limit into MESSAGE_TOO_LARGE, as the topic's own check would.
 */
function refusingCorrupt<T>(read: () => T, where: string, frame: number, partition: number): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof DecompressedSizeError) {
      throw new SluiceError('MESSAGE_TOO_LARGE', `${where}: the batch decompresses to more than ${e.limit} bytes, the largest max.message.bytes`, {
        frame,
        partition,
        maxMessageBytes: e.limit,
      });
    }
    if (e instanceof CorruptRecordError || e instanceof UnsupportedCompressionError) {
      throw invalid(`${where}: ${e.message}`, { frame, partition });
    }
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

/** The rules a producer's batch must follow beyond decoding; throws INVALID_REQUEST naming what broke one. */
function checkProducerBatch({ header, records }: DecodedBatch, where: string, frame: number): void {
  const fail = (why: string) => invalid(`${where}: ${why}`, { frame });
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
  throw new Error(`${where}: batch refused by the fast producer check but not by the full one`);
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
