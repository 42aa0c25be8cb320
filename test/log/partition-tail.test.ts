// STATE's tail: its ranges survive encoding for every kind of object, and it is sized so that a
// commit costs the write units STATE already takes: every STATE and SEG item measured after every
// append of a long run stays within 1 KB without idempotent producers, and within the unit STATE
// needs for its producers with them.
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { TAIL_MAX_BYTES, tailBudgetBytes } from '../../lib/log/partition-tail.js';
import { sharedProduceObjectKey } from '../../lib/log/produce-object.js';
import { decodeRange, encodeRange } from '../../lib/log/segment-range.js';
import { segmentObjectKey } from '../../lib/log/segment-name.js';
import { largestPartitionItems } from '../../lib/metadata/item-size.js';
import type { SegmentItem } from '../../lib/metadata/types.js';
import { countStorageRequests } from '../../bench/request-counter.js';
import { createTestContext } from '../support/storage.js';
import { readValues } from './read-all.js';

const range = (objectKey: string, baseOffset = 1234): SegmentItem => ({
  baseOffset,
  lastOffset: baseOffset + 9,
  count: 10,
  objectKey,
  position: 4096,
  size: 777,
  minTimestamp: 1_700_000_000_000,
  maxTimestamp: 1_700_000_000_999,
  epoch: 3,
  createdAt: 1_700_000_001_000,
});

describe("STATE's tail", () => {
  it('encodes ranges of the partition\'s own objects, shared produce objects and any other key, and decodes them exactly', async () => {
    const ctx = { ...(await createTestContext()), prefix: 'logs/prod' };
    const keys = [
      segmentObjectKey(ctx.prefix, 'orders.v2', 7, 1234, '3-0123456789abcdef', '.log'),
      sharedProduceObjectKey(ctx.prefix, 1_764_432_000_123, 'fedcba9876543210'),
      'elsewhere/odd,key with, commas.log',
    ];
    for (const key of keys) {
      const encoded = encodeRange(ctx, 'orders.v2', 7, range(key));
      expect(decodeRange(ctx, 'orders.v2', 7, encoded)).toEqual(range(key));
    }
    // The partition's own and shared objects are named by their ids only: a tail entry stays short.
    expect(encodeRange(ctx, 'orders.v2', 7, range(keys[0])).length).toBeLessThan(90);
    expect(encodeRange(ctx, 'orders.v2', 7, range(keys[1])).length).toBeLessThan(100);
  });

  it('takes what is left of the write unit STATE fills, the next unit when little is left', () => {
    expect(tailBudgetBytes(300)).toBe(1024 - 300 - 48);
    expect(tailBudgetBytes(1100)).toBe(TAIL_MAX_BYTES);
    expect(tailBudgetBytes(900)).toBe(TAIL_MAX_BYTES); // 76 B left: not worth a tail
  });

  it('keeps every STATE and SEG item within one write unit over 60 appends, two partitions per request', async () => {
    const ctx = await createTestContext({ leaseMs: 60_000 });
    const largest = { state: 0, segment: 0 };
    await appendToPartitions(ctx, 'a-long-topic-name-to-make-STATE-bigger.events', [0, 1].map((partition) => ({
      partition,
      records: [{ timestamp: Date.now(), key: null, value: Buffer.from('v0') }],
    })));
    const counter = countStorageRequests(ctx);
    for (let i = 1; i < 60; i++) {
      counter.reset();
      const results = await appendToPartitions(ctx, 'a-long-topic-name-to-make-STATE-bigger.events', [0, 1].map((partition) => ({
        partition,
        records: [{ timestamp: Date.now(), key: null, value: Buffer.from(`v${i}`) }],
      })));
      for (const r of results) expect(r).toHaveProperty('baseOffset', i);
      // As the endpoint reports it: every DynamoDB write of the append (commits, spills) consumed one unit.
      expect(counter.writeUnits).toBe(counter.total('ddb:'));
      const sizes = await largestPartitionItems(ctx, 'a-long-topic-name-to-make-STATE-bigger.events', 2);
      largest.state = Math.max(largest.state, sizes.state);
      largest.segment = Math.max(largest.segment, sizes.segment);
    }
    expect(largest.state).toBeLessThanOrEqual(1024);
    expect(largest.segment).toBeLessThanOrEqual(1024);
    expect(largest.segment).toBeGreaterThan(0); // the tails did spill
    expect(await readValues(ctx, 'a-long-topic-name-to-make-STATE-bigger.events', 1)).toHaveLength(60);
  });

  it('with idempotent producers, lets STATE grow no further than the write unit their entries already need', async () => {
    const ctx = await createTestContext({ leaseMs: 60_000 });
    const producers = [101, 102, 103, 104, 105, 106];
    const sequence = new Map(producers.map((id) => [id, 0]));
    let largest = 0;
    for (let i = 0; i < 48; i++) {
      const producerId = producers[i % producers.length];
      const [result] = await appendToPartitions(ctx, 'idem', [
        {
          partition: 0,
          records: [{ timestamp: Date.now(), key: null, value: Buffer.from(`p${producerId}-${i}`) }],
          producer: { producerId, producerEpoch: 0, baseSequence: sequence.get(producerId)! },
        },
      ]);
      expect(result).toHaveProperty('baseOffset', i);
      sequence.set(producerId, sequence.get(producerId)! + 1);
      largest = Math.max(largest, (await largestPartitionItems(ctx, 'idem', 1)).state);
    }
    // Six producers' entries take STATE past one unit on their own; the tail keeps it within two.
    expect(largest).toBeGreaterThan(1024);
    expect(largest).toBeLessThanOrEqual(2048);
  });
});
