// The record-batches body: Kafka's wire format for produce and fetch, beside the JSON contract.
// Media type `application/vnd.sluice.record-batches` (RECORD_BATCHES_MEDIA_TYPE), on the same paths.
//
// Produce request body (POST /v1/topics/{topic}/records, Content-Type: the media type) is a
// sequence of frames, nothing before, between or after them:
//
//   offset  size  field
//        0     4  partition   int32 BE   the partition this batch goes to (each at most once)
//        4     n  batch       one RecordBatch v2 exactly as Kafka encodes it (lib/records/record-batch.ts):
//                             baseOffset 0, magic 2, batchLength at its byte 8 (n = 12 + batchLength),
//                             CRC-32C valid, codec none or gzip, not transactional, not a control batch,
//                             CreateTime, recordCount >= 1, lastOffsetDelta = recordCount - 1 and
//                             record i at offsetDelta i; producerId/producerEpoch/baseSequence as a
//                             Kafka producer sets them (producerId -1: not idempotent; otherwise the
//                             same producerId and producerEpoch in every batch of the request).
//
// The leader stores the client's bytes, stamping only baseOffset and partitionLeaderEpoch (both
// outside the CRC), as a Kafka broker does. The answer is JSON `{offsets: [{partition, baseOffset,
// count}]}` in frame order; record i of a batch has offset baseOffset + i (so there is no
// per-record `records` list).
//
// Fetch (GET .../records with `Accept:` the media type) answers 200 with the stored batches
// concatenated as the body — whole batches, the first of which may start before the offset asked
// for (skip those records, as Kafka consumers do) — and the numbers in headers:
//   Sluice-Next-Offset, Sluice-High-Watermark, Sluice-Log-Start-Offset.
// Errors stay the JSON error body.
//
// Direct Lambda invoke is JSON, so bytes travel base64 there: `{op: "produce", topic, batches:
// "<base64 of the frames>"}`, and `{op: "fetch", ..., format: "batches"}` answers `{batches:
// "<base64 of the batches>", nextOffset, highWatermark, logStartOffset}`.
//
// No AWS or zod import: the client shares this file.
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

export const RECORD_BATCHES_MEDIA_TYPE = 'application/vnd.sluice.record-batches';

/** Fetch response headers (lower case, as API Gateway and Node deliver header names). */
export const NEXT_OFFSET_HEADER = 'sluice-next-offset';
export const HIGH_WATERMARK_HEADER = 'sluice-high-watermark';
export const LOG_START_OFFSET_HEADER = 'sluice-log-start-offset';

/** Bytes of the partition field before each batch. */
export const FRAME_PARTITION_BYTES = 4;

/**
 * Largest record-batches request body. The body reaches a Lambda base64-encoded (4/3 larger)
 * inside an event of at most 6 MB; 64 KiB are left for the rest of the event.
 */
export const MAX_BATCH_BODY_BYTES = Math.floor((6 * 1024 * 1024 - 64 * 1024) / 4) * 3;

/**
 * Batch bytes per fetch response: 3/4 of the JSON response budget, since the body is sent base64.
 * A fetch stops at a batch boundary under it, but always returns at least one batch.
 */
export const MAX_BATCH_RESPONSE_BYTES = 3.75 * 1024 * 1024;

/**
 * Most bytes one produced batch may take once decompressed: the highest max.message.bytes a topic
 * may have (lib/metadata/topics.ts MAX_MESSAGE_BYTES_LIMIT; the client shares this file, so it
 * cannot import that module). Decompression of a produced gzip batch stops here, before the
 * topic's own, possibly lower, limit is known; test/api/gzip-bomb.test.ts checks the two agree.
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

/** Whether a Content-Type / Accept header value names the record-batches media type. */
export function namesRecordBatches(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => part.split(';')[0].trim().toLowerCase() === RECORD_BATCHES_MEDIA_TYPE);
}

/** Frames of `(partition, batch)` pairs, in order: the produce body. */
export function encodeBatchFrames(frames: readonly { readonly partition: number; readonly batch: Buffer }[]): Buffer {
  let size = 0;
  for (const f of frames) size += FRAME_PARTITION_BYTES + f.batch.length;
  const body = Buffer.allocUnsafe(size);
  let position = 0;
  for (const f of frames) {
    body.writeInt32BE(f.partition, position);
    f.batch.copy(body, position + FRAME_PARTITION_BYTES);
    position += FRAME_PARTITION_BYTES + f.batch.length;
  }
  return body;
}

function invalid(message: string, details: Record<string, unknown> = {}): SluiceError {
  return new SluiceError('INVALID_REQUEST', message, details);
}

/**
 * Splits a produce body into frames and checks each batch as a Kafka broker's LogValidator does for
 * a producer's batch: the whole body must be frames, and every batch must decode (CRC, structure)
 * and follow the rules in the header comment. Throws INVALID_REQUEST naming the frame.
 */
export function readBatchFrames(body: Buffer): BatchFrame[] {
  if (body.length === 0) throw invalid('a record-batches body needs at least one frame');
  const frames: BatchFrame[] = [];
  for (let position = 0; position < body.length; ) {
    const frame = frames.length;
    const where = `frame ${frame} (byte ${position})`;
    if (body.length - position < FRAME_PARTITION_BYTES + 12) {
      throw invalid(`${where} is truncated: ${body.length - position} bytes left, less than a partition and a batch length`, { frame });
    }
    const partition = body.readInt32BE(position);
    if (partition < 0) throw invalid(`${where} names partition ${partition}`, { frame });
    const start = position + FRAME_PARTITION_BYTES;
    const size = 12 + body.readInt32BE(start + 8);
    if (size < 12 || start + size > body.length) {
      throw invalid(`${where} is truncated: its batch declares ${size} bytes, ${body.length - start} are left`, { frame, partition });
    }
    const bytes = body.subarray(start, start + size);
    const at = `${where}, partition ${partition}`;
    // Validated without decoding: the same checks as decodeRecordBatch (CRC-32C, structure, every
    // record), no object per record. A batch the producer rules refuse is decoded again on that
    // rare path, so the refusal names the record at fault.
    const limits = { maxDecompressedBytes: MAX_DECOMPRESSED_BATCH_BYTES };
    const summary = refusingCorrupt(() => validateRecordBatch(bytes, 0, limits), at, frame, partition);
    if (!obeysProducerRules(summary)) checkProducerBatch(refusingCorrupt(() => decodeRecordBatch(bytes, 0, limits), at, frame, partition), at, frame);
    frames.push({ partition, bytes, header: summary.header, minTimestamp: summary.minTimestamp, size: Math.max(size, summary.decompressedSizeInBytes) });
    position = start + size;
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
