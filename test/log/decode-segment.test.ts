// The read path inflates stored batches with a limit too: a batch stored before produce checked
// decompressed sizes (or written past the API) that inflates beyond the largest max.message.bytes
// is refused as CORRUPT_MESSAGE, never inflated without bound in the fetch's memory.
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { readBatches, readRecords } from '../../lib/log/read.js';
import { MAX_MESSAGE_BYTES_LIMIT, createTopic } from '../../lib/metadata/topics.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';

describe('decoding stored batches', () => {
  it('refuses a stored gzip batch that inflates past the largest max.message.bytes, and reads the batches around it', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    const plain = (v: string) => ({ records: [{ timestamp: 1, key: null, value: Buffer.from(v) }] });
    const bomb = encodeRecordBatch([{ timestamp: 1, key: null, value: Buffer.alloc(MAX_MESSAGE_BYTES_LIMIT + 1024) }], { baseOffset: 0, compression: 'gzip' });
    expect(bomb.length).toBeLessThan(64 * 1024);
    await appendToPartitions(ctx, topic, [{ partition: 0, ...plain('before') }]);
    // Written past the API, which refuses it (test/api/gzip-bomb.test.ts).
    await appendToPartitions(ctx, topic, [{ partition: 0, batch: { bytes: bomb, count: 1, minTimestamp: 1 } }]);
    await appendToPartitions(ctx, topic, [{ partition: 0, ...plain('after') }]);

    expect((await readRecords(ctx, topic, 0, { offset: 0, maxBytes: 100 })).records.map((r) => r.value?.toString())).toEqual(['before']);
    await expect(readRecords(ctx, topic, 0, { offset: 1, maxBytes: 1 << 20 })).rejects.toMatchObject({ code: 'CORRUPT_MESSAGE' });
    expect((await readRecords(ctx, topic, 0, { offset: 2, maxBytes: 1 << 20 })).records.map((r) => r.value?.toString())).toEqual(['after']);
    // Undecoded, the batch goes to the client as stored (a Kafka consumer applies its own limit).
    expect((await readBatches(ctx, topic, 0, { offset: 1, maxBytes: 100 })).batches[0]).toHaveLength(bomb.length);
  });
});
