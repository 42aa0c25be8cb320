// lib/log/segment-fetch.ts: adjacent ranges of one object become one ranged GET; a missing object
// is a stale view (the caller re-reads STATE); a short body is CORRUPT_MESSAGE; `.index` objects
// are cached by bucket and key.
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../lib/context.js';
import { StaleViewError, fetchRanges, getObjectRange, getOffsetIndexObject } from '../../lib/log/segment-fetch.js';

const OBJECTS: Record<string, Buffer> = { a: Buffer.from('0123456789'), b: Buffer.from('abcdefghij') };

function mocked(bucket = 'bkt') {
  const s3 = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  const mock = mockClient(s3);
  mock.on(GetObjectCommand).callsFake(async (input: { Key: string; Range?: string }) => {
    const object = OBJECTS[input.Key];
    if (!object) throw Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } });
    const m = input.Range ? /^bytes=(\d+)-(\d+)$/.exec(input.Range) : null;
    const bytes = m ? object.subarray(Number(m[1]), Number(m[2]) + 1) : object;
    return { Body: { transformToByteArray: async () => new Uint8Array(bytes) } };
  });
  return { ctx: createContext({ s3, ddb: undefined as never }, { bucket }), mock };
}

describe('getObjectRange', () => {
  it('one ranged GET, end exclusive', async () => {
    const { ctx, mock } = mocked();
    expect((await getObjectRange(ctx, { objectKey: 'a', start: 2, end: 5 })).toString()).toBe('234');
    expect(mock.commandCalls(GetObjectCommand)[0].args[0].input).toEqual({ Bucket: 'bkt', Key: 'a', Range: 'bytes=2-4' });
  });
  it('missing object: StaleViewError; shorter than asked: CORRUPT_MESSAGE', async () => {
    const { ctx } = mocked();
    await expect(getObjectRange(ctx, { objectKey: 'gone', start: 0, end: 1 })).rejects.toBeInstanceOf(StaleViewError);
    await expect(getObjectRange(ctx, { objectKey: 'a', start: 8, end: 20 })).rejects.toMatchObject({ code: 'CORRUPT_MESSAGE' });
  });
});

describe('fetchRanges', () => {
  it('merges adjacent ranges of one object, keeps others apart, answers in the given order', async () => {
    const { ctx, mock } = mocked();
    const out = await fetchRanges(ctx, [
      { objectKey: 'a', start: 0, end: 2 },
      { objectKey: 'a', start: 2, end: 5 },
      { objectKey: 'b', start: 3, end: 4 },
      { objectKey: 'a', start: 7, end: 9 }, // not adjacent to the run before it
    ]);
    expect(out.map(String)).toEqual(['01', '234', 'd', '78']);
    expect(mock.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Range).sort()).toEqual(['bytes=0-4', 'bytes=3-3', 'bytes=7-8']);
  });
  it('nothing asked: no request', async () => {
    const { ctx, mock } = mocked();
    expect(await fetchRanges(ctx, [])).toEqual([]);
    expect(mock.calls()).toHaveLength(0);
  });
});

describe('getOffsetIndexObject', () => {
  it('reads the whole object once per bucket and key; a missing one is a stale view (not cached)', async () => {
    const bucket = `b-${Math.random()}`;
    const { ctx, mock } = mocked(bucket);
    expect(String(await getOffsetIndexObject(ctx, 'a'))).toBe('0123456789');
    expect(String(await getOffsetIndexObject(ctx, 'a'))).toBe('0123456789');
    expect(mock.commandCalls(GetObjectCommand)).toHaveLength(1);
    expect(mock.commandCalls(GetObjectCommand)[0].args[0].input.Range).toBeUndefined();
    const other = mocked(`${bucket}-2`);
    await getOffsetIndexObject(other.ctx, 'a');
    expect(other.mock.commandCalls(GetObjectCommand)).toHaveLength(1);
    await expect(getOffsetIndexObject(ctx, 'missing')).rejects.toBeInstanceOf(StaleViewError);
    await expect(getOffsetIndexObject(ctx, 'missing')).rejects.toBeInstanceOf(StaleViewError);
    expect(mock.commandCalls(GetObjectCommand)).toHaveLength(3);
  });
});
