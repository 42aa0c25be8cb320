// The record-batches frame codec (lib/records/batch-frames.ts) that client and server share: what
// encodeBatchFrames writes, decodeBatchFrames reads back frame for frame, and a body that is not a
// sequence of frames is refused naming the frame.
import { describe, expect, it } from 'vitest';
import {
  FRAME_PARTITION_BYTES,
  MalformedFramesError,
  decodeBatchFrames,
  encodeBatchFrames,
  namesRecordBatches,
  RECORD_BATCHES_MEDIA_TYPE,
} from '../../lib/records/batch-frames.js';
import { encodeRecordBatch } from '../../lib/records/index.js';

const batch = (value: string) => encodeRecordBatch([{ key: null, value: Buffer.from(value), timestamp: 1 }], { baseOffset: 0 });

function refusal(body: Buffer): MalformedFramesError {
  try {
    [...decodeBatchFrames(body)];
  } catch (e) {
    if (e instanceof MalformedFramesError) return e;
    throw e;
  }
  throw new Error('the body was accepted');
}

describe('batch frames', () => {
  it('decodes what it encodes, in order, as views of the body', () => {
    const frames = [
      { partition: 2, batch: batch('a') },
      { partition: 0, batch: batch('bb') },
    ];
    const body = encodeBatchFrames(frames);
    const decoded = [...decodeBatchFrames(body)];
    expect(decoded.map((f) => [f.frame, f.partition, f.bytes])).toEqual(frames.map((f, i) => [i, f.partition, f.batch]));
    expect(decoded[1].position).toBe(FRAME_PARTITION_BYTES + frames[0].batch.length);
    expect(decoded[0].bytes.buffer).toBe(body.buffer);
  });

  it('refuses an empty body, a truncated frame and a negative partition, naming the frame', () => {
    expect(refusal(Buffer.alloc(0)).message).toMatch(/at least one frame/);
    const whole = encodeBatchFrames([{ partition: 1, batch: batch('a') }]);
    const truncated = refusal(Buffer.concat([whole, whole.subarray(0, whole.length - 1)]));
    expect([truncated.frame, truncated.partition]).toEqual([1, 1]);
    expect(truncated.message).toMatch(/frame 1 .* is truncated/);
    expect(refusal(Buffer.concat([whole, Buffer.alloc(3)])).frame).toBe(1);
    const negative = Buffer.from(whole);
    negative.writeInt32BE(-1, 0);
    expect(refusal(negative).message).toMatch(/frame 0 \(byte 0\) names partition -1/);
  });

  it('recognises the media type among header values', () => {
    expect(namesRecordBatches(`application/json, ${RECORD_BATCHES_MEDIA_TYPE.toUpperCase()}; q=0.5`)).toBe(true);
    expect(namesRecordBatches('application/json')).toBe(false);
    expect(namesRecordBatches(undefined)).toBe(false);
  });
});
