// The record-batches body (lib/records/batch-frames.ts) through the real handlers on the emulators:
// produce and fetch in Kafka's wire format agree with the JSON contract record for record, every
// malformed request is refused with its code and stores nothing, and idempotent retries return the
// original offsets.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import {
  HIGH_WATERMARK_HEADER,
  LOG_START_OFFSET_HEADER,
  NEXT_OFFSET_HEADER,
  RECORD_BATCHES_MEDIA_TYPE,
  encodeBatchFrames,
} from '../../lib/records/batch-frames.js';
import { handleHttp, handleInvoke } from '../../lib/api/router.js';
import { type DecodedRecord, type EncodeBatchOptions, type RecordInput, crc32c, encodeRecordBatch } from '../../lib/records/index.js';
import { decodeRecordBatches } from '../support/record-batches.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

const T0 = 1_700_000_000_000;

function records(n: number, prefix = 'v', from = 0): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({
    timestamp: T0 + from + i,
    key: i % 3 === 0 ? null : Buffer.from(`k${from + i}`),
    value: i % 5 === 4 ? null : Buffer.from(`${prefix}-${from + i}-ü`),
    headers: i % 2 === 0 ? [{ key: 'h', value: Buffer.from([0, 255, from + i]) }, { key: 'h', value: null }] : [],
  }));
}

const batch = (rs: RecordInput[], options: Partial<EncodeBatchOptions> = {}) => encodeRecordBatch(rs, { baseOffset: 0, ...options });

function produceBinary(ctx: SluiceContext, topic: string, body: Buffer) {
  return handleHttp(ctx, { method: 'POST', path: `/v1/topics/${topic}/records`, headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE }, body });
}

async function fetchBinary(ctx: SluiceContext, topic: string, partition: number, offset: number, query: Record<string, string> = {}) {
  const res = await handleHttp(ctx, {
    method: 'GET',
    path: `/v1/topics/${topic}/partitions/${partition}/records`,
    query: { offset: String(offset), ...query },
    headers: { accept: RECORD_BATCHES_MEDIA_TYPE },
  });
  expect(res.status, res.body).toBe(200);
  expect(res.isBase64Encoded).toBe(true);
  expect(res.headers['content-type']).toBe(RECORD_BATCHES_MEDIA_TYPE);
  return {
    bytes: Buffer.from(res.body, 'base64'),
    nextOffset: Number(res.headers[NEXT_OFFSET_HEADER]),
    highWatermark: Number(res.headers[HIGH_WATERMARK_HEADER]),
    logStartOffset: Number(res.headers[LOG_START_OFFSET_HEADER]),
  };
}

/** Every record of a partition read with binary fetches, records below each requested offset skipped. */
async function readBinary(ctx: SluiceContext, topic: string, partition: number): Promise<DecodedRecord[]> {
  const out: DecodedRecord[] = [];
  let offset = 0;
  for (;;) {
    const f = await fetchBinary(ctx, topic, partition, offset, { maxBytes: '300' });
    for (const b of decodeRecordBatches(f.bytes)) out.push(...b.records.filter((r) => r.offset >= offset));
    if (f.nextOffset >= f.highWatermark) return out;
    offset = f.nextOffset;
  }
}

/** Every record of a partition through the JSON fetch, as bytes. */
async function readJson(ctx: SluiceContext, topic: string, partition: number) {
  type Wire = { offset: number; timestamp: number; key: string | null; value: string | null; headers: { key: string; value: string | null }[] };
  const bytes = (s: string | null) => (s === null ? null : Buffer.from(s, 'base64'));
  const out = [];
  for (let offset = 0; ; ) {
    const res = await call(ctx, 'GET', `/v1/topics/${topic}/partitions/${partition}/records`, undefined, { offset: String(offset), encoding: 'base64' });
    expect(res.status).toBe(200);
    for (const r of res.body.records as Wire[]) {
      out.push({ offset: r.offset, timestamp: r.timestamp, key: bytes(r.key), value: bytes(r.value), headers: r.headers.map((h) => ({ key: h.key, value: bytes(h.value) })) });
    }
    if (res.body.nextOffset >= res.body.highWatermark) return out;
    offset = res.body.nextOffset;
  }
}

const plain = (rs: readonly DecodedRecord[]) => rs.map((r) => ({ offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers }));

describe('record-batches body', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    for (const name of ['rt', 'json-in', 'bad', 'idem', 'wait', 'plain']) {
      expect((await call(ctx, 'POST', '/v1/topics', { name, partitions: 2, config: { 'max.message.bytes': 2000 } })).status).toBe(201);
    }
  });

  it('binary produce reads back identically through binary and JSON fetch, stored byte for byte', async () => {
    const sent0 = batch(records(12, 'a'));
    const sent1 = batch(records(5, 'b'));
    const res = await produceBinary(ctx, 'rt', encodeBatchFrames([{ partition: 1, batch: sent1 }, { partition: 0, batch: sent0 }]));
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ offsets: [{ partition: 1, baseOffset: 0, count: 5 }, { partition: 0, baseOffset: 0, count: 12 }] });
    const second = await produceBinary(ctx, 'rt', encodeBatchFrames([{ partition: 0, batch: batch(records(4, 'c', 12)) }]));
    expect(JSON.parse(second.body)).toEqual({ offsets: [{ partition: 0, baseOffset: 12, count: 4 }] });

    const expected = [...records(12, 'a'), ...records(4, 'c', 12)].map((r, i) => ({ offset: i, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers }));
    expect(plain(await readBinary(ctx, 'rt', 0))).toEqual(expected);
    expect(await readJson(ctx, 'rt', 0)).toEqual(expected);
    // The first batch comes back as the client sent it, but for the stamped base offset and leader epoch.
    const first = (await fetchBinary(ctx, 'rt', 1, 0)).bytes;
    expect(first.subarray(16)).toEqual(sent1.subarray(16));
  });

  it('a binary fetch from the middle of a batch returns the whole batch', async () => {
    const f = await fetchBinary(ctx, 'rt', 0, 14);
    const batches = decodeRecordBatches(f.bytes);
    expect(batches[0].header.baseOffset).toBe(12);
    expect(f).toMatchObject({ nextOffset: 16, highWatermark: 16, logStartOffset: 0 });
  });

  it('JSON produce reads back identically through binary fetch', async () => {
    const res = await call(ctx, 'POST', '/v1/topics/json-in/records', {
      encoding: 'base64',
      records: records(7, 'j').map((r) => ({
        partition: 0,
        timestamp: r.timestamp,
        key: r.key?.toString('base64') ?? null,
        value: r.value?.toString('base64') ?? null,
        headers: r.headers!.map((h) => ({ key: h.key, value: h.value?.toString('base64') ?? null })),
      })),
    });
    expect(res.status).toBe(200);
    expect(plain(await readBinary(ctx, 'json-in', 0))).toEqual(await readJson(ctx, 'json-in', 0));
  });

  it('long-polls a binary fetch at the high watermark until a batch arrives', async () => {
    const polling = fetchBinary(ctx, 'wait', 0, 0, { maxWaitMs: '10000' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await produceBinary(ctx, 'wait', encodeBatchFrames([{ partition: 0, batch: batch(records(2)) }]));
    const f = await polling;
    expect(decodeRecordBatches(f.bytes).flatMap((b) => b.records.map((r) => r.offset))).toEqual([0, 1]);
    expect(f.nextOffset).toBe(2);
    const empty = await fetchBinary(ctx, 'wait', 0, 2, { maxWaitMs: '100' });
    expect(empty).toMatchObject({ bytes: Buffer.alloc(0), nextOffset: 2, highWatermark: 2 });
  });

  describe('refuses and stores nothing', () => {
    const good = () => batch(records(3));
    /** A copy of `b` with `edit` applied and the CRC recomputed, so only the edited rule is broken. */
    const edited = (b: Buffer, edit: (copy: Buffer) => void) => {
      const copy = Buffer.from(b);
      edit(copy);
      return encodeRecordBatchFromEdited(copy);
    };
    const cases: [string, () => Buffer, number, string, string?][] = [
      ['an empty body', () => Buffer.alloc(0), 400, 'INVALID_REQUEST', 'at least one frame'],
      ['a truncated frame', () => encodeBatchFrames([{ partition: 0, batch: good() }]).subarray(0, 40), 400, 'INVALID_REQUEST', 'truncated'],
      ['a batch cut short', () => { const b = encodeBatchFrames([{ partition: 0, batch: good() }]); return b.subarray(0, b.length - 1); }, 400, 'INVALID_REQUEST', 'truncated'],
      ['trailing bytes after the last frame', () => Buffer.concat([encodeBatchFrames([{ partition: 0, batch: good() }]), Buffer.from([0, 0])]), 400, 'INVALID_REQUEST', 'truncated'],
      ['a corrupted byte (CRC fails)', () => { const b = encodeBatchFrames([{ partition: 0, batch: good() }]); b[b.length - 3] ^= 1; return b; }, 400, 'INVALID_REQUEST', 'corrupt'],
      ['magic 1', () => encodeBatchFrames([{ partition: 0, batch: edited(good(), (c) => c.writeInt8(1, 16)) }]), 400, 'INVALID_REQUEST', 'magic'],
      ['snappy compression', () => encodeBatchFrames([{ partition: 0, batch: edited(good(), (c) => c.writeInt16BE(2, 21)) }]), 400, 'INVALID_REQUEST', 'snappy'],
      ['a transactional batch', () => encodeBatchFrames([{ partition: 0, batch: batch(records(2), { isTransactional: true, producerId: 1, producerEpoch: 0, baseSequence: 0 }) }]), 400, 'INVALID_REQUEST', 'transactional'],
      ['a control batch', () => encodeBatchFrames([{ partition: 0, batch: edited(good(), (c) => c.writeInt16BE(0x20, 21)) }]), 400, 'INVALID_REQUEST', 'control'],
      ['lastOffsetDelta not count - 1', () => encodeBatchFrames([{ partition: 0, batch: edited(good(), (c) => c.writeInt32BE(5, 23)) }]), 400, 'INVALID_REQUEST', 'lastOffsetDelta'],
      ['offsets not dense', () => encodeBatchFrames([{ partition: 0, batch: sparseBatch() }]), 400, 'INVALID_REQUEST', 'offsetDelta'],
      ['a negative record timestamp', () => encodeBatchFrames([{ partition: 0, batch: edited(good(), (c) => c.writeBigInt64BE(-5n, 27)) }]), 400, 'INVALID_REQUEST', 'negative timestamp'],
      ['a non-zero baseOffset', () => encodeBatchFrames([{ partition: 0, batch: encodeRecordBatch(records(2), { baseOffset: 7 }) }]), 400, 'INVALID_REQUEST', 'baseOffset'],
      ['recordCount 0', () => encodeBatchFrames([{ partition: 0, batch: emptyBatch() }]), 400, 'INVALID_REQUEST', 'no records'],
      ['a partition that does not exist', () => encodeBatchFrames([{ partition: 0, batch: good() }, { partition: 2, batch: good() }]), 404, 'UNKNOWN_TOPIC_OR_PARTITION'],
      ['a partition twice', () => encodeBatchFrames([{ partition: 1, batch: good() }, { partition: 1, batch: good() }]), 400, 'INVALID_REQUEST', 'twice'],
      ['a batch over max.message.bytes', () => encodeBatchFrames([{ partition: 0, batch: batch([{ timestamp: T0, key: null, value: Buffer.alloc(2100) }]) }]), 413, 'MESSAGE_TOO_LARGE', 'max.message.bytes'],
      ['producer fields differing between batches', () => encodeBatchFrames([
        { partition: 0, batch: batch(records(1), { producerId: 5, producerEpoch: 0, baseSequence: 0 }) },
        { partition: 1, batch: batch(records(1), { producerId: 6, producerEpoch: 0, baseSequence: 0 }) },
      ]), 400, 'INVALID_REQUEST', 'producerId'],
      ['an idempotent and a plain batch together', () => encodeBatchFrames([
        { partition: 0, batch: batch(records(1), { producerId: 5, producerEpoch: 0, baseSequence: 0 }) },
        { partition: 1, batch: good() },
      ]), 400, 'INVALID_REQUEST', 'producerId'],
      ['too many records', () => encodeBatchFrames([{ partition: 0, batch: batch(Array.from({ length: 100_001 }, () => ({ timestamp: T0, key: null, value: null }))) }]), 400, 'INVALID_REQUEST', 'at most 100000'],
    ];
    it.each(cases)('%s', async (_, body, status, code, mentions) => {
      const res = await produceBinary(ctx, 'bad', body());
      expect(res.status, res.body).toBe(status);
      const error = JSON.parse(res.body).error;
      expect(error.code).toBe(code);
      if (mentions) expect(error.message).toContain(mentions);
      const described = await call(ctx, 'GET', '/v1/topics/bad');
      expect(described.body.partitions.map((p: { highWatermark: number }) => p.highWatermark)).toEqual([0, 0]);
    });

    it('a record-batches body where the operation takes none', async () => {
      const res = await handleHttp(ctx, { method: 'POST', path: '/v1/topics', headers: { 'Content-Type': RECORD_BATCHES_MEDIA_TYPE }, body: good() });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.message).toContain(RECORD_BATCHES_MEDIA_TYPE);
    });

    it('a producer id the cluster never issued', async () => {
      const res = await produceBinary(ctx, 'bad', encodeBatchFrames([{ partition: 0, batch: batch(records(1), { producerId: 77, producerEpoch: 0, baseSequence: 0 }) }]));
      expect(res.status).toBe(409);
      expect(JSON.parse(res.body).error).toMatchObject({ code: 'UNKNOWN_PRODUCER_ID', message: expect.stringContaining('not issued') });
    });

    it('a sequence that skips ahead, with the codes the JSON body gets (Kafka: unknown producer, then out of order)', async () => {
      const { producerId, producerEpoch } = (await call(ctx, 'POST', '/v1/producers', {})).body;
      const send = (baseSequence: number) =>
        produceBinary(ctx, 'bad', encodeBatchFrames([{ partition: 0, batch: batch(records(1), { producerId, producerEpoch, baseSequence }) }]));
      expect(JSON.parse((await send(3)).body).error.code).toBe('UNKNOWN_PRODUCER_ID');
      expect((await send(0)).status).toBe(200);
      const gap = await send(5);
      expect(gap.status).toBe(409);
      expect(JSON.parse(gap.body).error.code).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
    });
  });

  it('an idempotent retry returns the original offsets and appends nothing', async () => {
    const { body } = await call(ctx, 'POST', '/v1/producers', {});
    const { producerId, producerEpoch } = body;
    const frames = encodeBatchFrames([
      { partition: 0, batch: batch(records(3), { producerId, producerEpoch, baseSequence: 0 }) },
      { partition: 1, batch: batch(records(2), { producerId, producerEpoch, baseSequence: 0 }) },
    ]);
    const first = JSON.parse((await produceBinary(ctx, 'idem', frames)).body);
    expect(first).toEqual({ offsets: [{ partition: 0, baseOffset: 0, count: 3 }, { partition: 1, baseOffset: 0, count: 2 }] });
    const retry = JSON.parse((await produceBinary(ctx, 'idem', frames)).body);
    expect(retry).toEqual({ offsets: [{ partition: 0, baseOffset: 0, count: 3, duplicate: true }, { partition: 1, baseOffset: 0, count: 2, duplicate: true }] });
    const next = await produceBinary(ctx, 'idem', encodeBatchFrames([{ partition: 0, batch: batch(records(1), { producerId, producerEpoch, baseSequence: 3 }) }]));
    expect(JSON.parse(next.body)).toEqual({ offsets: [{ partition: 0, baseOffset: 3, count: 1 }] });
    expect((await readBinary(ctx, 'idem', 0)).length).toBe(4);
  });

  it("a batch without a producer id (-1) is plain whatever its epoch and sequence, as a Kafka broker ignores them (kafkajs sends 0 and 0)", async () => {
    const kafkajsLike = (from: number) => batch(records(2, 'plain', from), { producerId: -1, producerEpoch: 0, baseSequence: 0 });
    const body = encodeBatchFrames([
      { partition: 0, batch: kafkajsLike(0) },
      { partition: 1, batch: batch(records(1, 'plain'), { producerId: -1, producerEpoch: 7, baseSequence: 42 }) },
    ]);
    const first = await produceBinary(ctx, 'plain', body);
    expect(first.status, first.body).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ offsets: [{ partition: 0, baseOffset: 0, count: 2 }, { partition: 1, baseOffset: 0, count: 1 }] });
    // Not idempotent: the same sequence again is a new append, never a duplicate or a sequence error.
    const again = await produceBinary(ctx, 'plain', encodeBatchFrames([{ partition: 0, batch: kafkajsLike(2) }]));
    expect(JSON.parse(again.body)).toEqual({ offsets: [{ partition: 0, baseOffset: 2, count: 2 }] });
    const read = await readBinary(ctx, 'plain', 0);
    expect(read.map((r) => r.value?.toString())).toEqual(['plain-0-ü', 'plain-1-ü', 'plain-2-ü', 'plain-3-ü']);
    const stored = decodeRecordBatches((await fetchBinary(ctx, 'plain', 0, 0)).bytes);
    expect(stored.map((b) => [b.header.producerId, b.header.producerEpoch, b.header.baseSequence])).toEqual([[-1, 0, 0], [-1, 0, 0]]);
  });

  it('direct invoke carries the frames and the fetched batches in base64', async () => {
    const frames = encodeBatchFrames([{ partition: 1, batch: batch(records(4, 'inv')) }]);
    const produced = await handleInvoke(ctx, { op: 'produce', topic: 'json-in', batches: frames.toString('base64') });
    expect(produced).toEqual({ status: 200, body: { offsets: [{ partition: 1, baseOffset: 0, count: 4 }] } });
    const fetched = await handleInvoke(ctx, { op: 'fetch', topic: 'json-in', partition: 1, offset: 0, format: 'batches' });
    const reply = fetched.body as { batches: string; nextOffset: number; highWatermark: number; logStartOffset: number };
    expect(reply).toMatchObject({ nextOffset: 4, highWatermark: 4, logStartOffset: 0 });
    const [got] = decodeRecordBatches(Buffer.from(reply.batches, 'base64'));
    expect(plain(got.records).map((r) => r.value)).toEqual(records(4, 'inv').map((r) => r.value));
    const refused = await handleInvoke(ctx, { op: 'produce', topic: 'json-in', batches: 'not base64!' });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
  });
});

/** Recomputes the CRC of an edited batch (bytes 21.. are covered). */
function encodeRecordBatchFromEdited(b: Buffer): Buffer {
  b.writeUInt32BE(crc32c(b, 21), 17);
  return b;
}

/** A valid batch whose second record claims offsetDelta 2 (a gap), lastOffsetDelta consistent with the count. */
function sparseBatch(): Buffer {
  const b = batch([{ timestamp: T0, key: null, value: Buffer.from('a') }, { timestamp: T0, key: null, value: Buffer.from('b') }]);
  // Records start at 61: [length varint][attributes][timestampDelta][offsetDelta] — the second
  // record starts after the first's length + body. Each record here is 1 + 7 bytes.
  const second = 61 + 1 + b.readInt8(61) / 2;
  expect(b[second + 3]).toBe(2); // zigzag varint of offsetDelta 1
  b[second + 3] = 4; // offsetDelta 2
  return encodeRecordBatchFromEdited(b);
}

/** A well-formed batch header with recordCount 0 and no records. */
function emptyBatch(): Buffer {
  const b = batch(records(1));
  const header = Buffer.from(b.subarray(0, 61));
  header.writeInt32BE(61 - 12, 8);
  header.writeInt32BE(-1, 23);
  header.writeInt32BE(0, 57);
  return encodeRecordBatchFromEdited(header);
}
