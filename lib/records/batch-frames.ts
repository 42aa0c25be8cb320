// The record-batches body: Kafka's wire format for produce and fetch, beside the JSON contract.
// Media type `application/vnd.sluice.record-batches` (RECORD_BATCHES_MEDIA_TYPE), on the same paths.
// Client and server share this file (no AWS, no zod, no server error): the client encodes frames,
// the server's lib/api/batch-body.ts decodes them here and then checks them as a broker does.
//
// Produce request body (POST /v1/topics/{topic}/records, Content-Type: the media type) is a
// sequence of frames, nothing before, between or after them:
//
//   offset  size  field
//        0     4  partition   int32 BE   the partition this batch goes to (each at most once)
//        4     n  batch       one RecordBatch v2 exactly as Kafka encodes it (record-batch.ts):
//                             baseOffset 0, magic 2, batchLength at its byte 8 (n = 12 + batchLength),
//                             CRC-32C valid, codec none or gzip, not transactional, not a control batch,
//                             CreateTime, recordCount >= 1, lastOffsetDelta = recordCount - 1 and
//                             record i at offsetDelta i; producerId/producerEpoch/baseSequence as a
//                             Kafka producer sets them (producerId -1: not idempotent; otherwise the
//                             same producerId and producerEpoch in every batch of the request).
//
// The server stores the client's bytes, stamping only baseOffset and partitionLeaderEpoch (both
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

export const RECORD_BATCHES_MEDIA_TYPE = 'application/vnd.sluice.record-batches';

/** Fetch response headers (lower case, as API Gateway and Node deliver header names). */
export const NEXT_OFFSET_HEADER = 'sluice-next-offset';
export const HIGH_WATERMARK_HEADER = 'sluice-high-watermark';
export const LOG_START_OFFSET_HEADER = 'sluice-log-start-offset';

/** Bytes of the partition field before each batch. */
export const FRAME_PARTITION_BYTES = 4;

/** Bytes of a RecordBatch before and including its batchLength field (baseOffset, batchLength). */
const BATCH_LENGTH_END = 12;

/**
 * Largest record-batches request body. The body reaches a Lambda base64-encoded (4/3 larger)
 * inside an event of at most 6 MB; 64 KiB are left for the rest of the event.
 */
export const MAX_BATCH_BODY_BYTES = Math.floor((6 * 1024 * 1024 - 64 * 1024) / 4) * 3;

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

/** A body that is not a sequence of frames: `frame` (and `partition`, once read) name where. */
export class MalformedFramesError extends Error {
  override readonly name = 'MalformedFramesError';
  constructor(
    message: string,
    readonly frame: number,
    readonly partition?: number,
  ) {
    super(message);
  }
}

/** One frame as read from a body: the batch bytes are a view of it, not yet checked as a batch. */
export interface RawBatchFrame {
  /** Index of the frame in the body. */
  readonly frame: number;
  /** Byte of the body where the frame starts. */
  readonly position: number;
  readonly partition: number;
  readonly bytes: Buffer;
}

/**
 * The frames of a produce body, in order, lazily: a caller that checks each batch as it comes
 * refuses the first frame at fault. Only the framing is read here (partition, batchLength);
 * throws MalformedFramesError for an empty or truncated body or a negative partition.
 */
export function* decodeBatchFrames(body: Buffer): Generator<RawBatchFrame> {
  if (body.length === 0) throw new MalformedFramesError('a record-batches body needs at least one frame', 0);
  for (let position = 0, frame = 0; position < body.length; frame++) {
    const where = `frame ${frame} (byte ${position})`;
    if (body.length - position < FRAME_PARTITION_BYTES + BATCH_LENGTH_END) {
      throw new MalformedFramesError(`${where} is truncated: ${body.length - position} bytes left, less than a partition and a batch length`, frame);
    }
    const partition = body.readInt32BE(position);
    if (partition < 0) throw new MalformedFramesError(`${where} names partition ${partition}`, frame);
    const start = position + FRAME_PARTITION_BYTES;
    const size = BATCH_LENGTH_END + body.readInt32BE(start + 8);
    if (size < BATCH_LENGTH_END || start + size > body.length) {
      throw new MalformedFramesError(`${where} is truncated: its batch declares ${size} bytes, ${body.length - start} are left`, frame, partition);
    }
    yield { frame, position, partition, bytes: body.subarray(start, start + size) };
    position = start + size;
  }
}
