// lib/metadata/item-size.ts: DynamoDB's documented item size rules, and the largest items of a topic.
import { describe, expect, it } from 'vitest';
import { itemBytes, largestPartitionItems, valueBytes } from '../../lib/metadata/item-size.js';
import { createPartitionStates } from '../../lib/metadata/partition-state.js';
import { putMergedItem } from '../support/manifest-items.js';
import { createTestContext } from '../support/storage.js';

describe('valueBytes', () => {
  it('strings are UTF-8 bytes; binaries their length; null and booleans one byte', () => {
    expect(valueBytes('abc')).toBe(3);
    expect(valueBytes('é')).toBe(2);
    expect(valueBytes(Buffer.alloc(7))).toBe(7);
    expect(valueBytes(new Uint8Array(4))).toBe(4);
    expect(valueBytes(null)).toBe(1);
    expect(valueBytes(true)).toBe(1);
  });
  it('numbers: one byte per two significant digits, plus one (leading and trailing zeros free)', () => {
    expect(valueBytes(0)).toBe(2);
    expect(valueBytes(7)).toBe(2);
    expect(valueBytes(12)).toBe(2);
    expect(valueBytes(123)).toBe(3);
    expect(valueBytes(1_000_000)).toBe(2);
    expect(valueBytes(-1234.5)).toBe(4);
  });
  it('lists and maps: 3 bytes plus one per element, plus elements (and map keys)', () => {
    expect(valueBytes([])).toBe(3);
    expect(valueBytes(['ab', 'c'])).toBe(3 + 1 + 2 + 1 + 1);
    expect(valueBytes({ ab: 'c' })).toBe(3 + 1 + 2 + 1);
    expect(() => valueBytes(Symbol('x'))).toThrow(TypeError);
  });
  it('itemBytes: attribute names plus values', () => {
    expect(itemBytes({ pk: 'abc', n: 12 })).toBe(2 + 3 + 1 + 2);
  });
});

describe('largestPartitionItems (emulator)', () => {
  it('the largest STATE and SEG items across partitions', async () => {
    const ctx = await createTestContext();
    const topic = { name: 't', id: 'X' };
    await createPartitionStates(ctx, topic, [0, 1]);
    const seg = { baseOffset: 0, lastOffset: 0, count: 1, objectKey: 'k'.repeat(500), position: 0, size: 1, minTimestamp: 0, maxTimestamp: 0, createdAt: 0, epoch: 0 };
    await putMergedItem(ctx, topic, 1, seg);
    await putMergedItem(ctx, topic, 0, { ...seg, objectKey: 'short' });
    const out = await largestPartitionItems(ctx, topic, 2);
    expect(out.segment).toBeGreaterThan(500);
    expect(out.segment).toBeLessThan(700);
    expect(out.state).toBeGreaterThan(50);
    expect(out.state).toBeLessThan(300);
  });
});
