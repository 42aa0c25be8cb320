// lib/log/producer-sequence.ts: Kafka's idempotent-producer verdicts on a refused append.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PRODUCERS_PER_PARTITION, classifyRefusedSequence, incrementSequence } from '../../lib/log/producer-sequence.js';
import type { PartitionState, ProducerEntry } from '../../lib/metadata/types.js';

const entry = (over: Partial<ProducerEntry> = {}): ProducerEntry => ({ producerEpoch: 2, baseSequence: 10, lastSequence: 14, count: 5, lastUpdated: 0, ...over });
const state = (producers: Record<string, ProducerEntry>, bases: Record<string, number> = {}): PartitionState =>
  ({ producers, producerBases: bases }) as unknown as PartitionState;
const verdict = (s: PartitionState, producerEpoch: number, baseSequence: number, count = 5) => {
  const v = classifyRefusedSequence(s, { producerId: 7, producerEpoch, baseSequence }, count);
  return v.kind === 'error' ? v.error.code : v.kind;
};

describe('incrementSequence', () => {
  it('wraps after 2^31 - 1 as Kafka does', () => {
    expect(incrementSequence(5, 1)).toBe(6);
    expect(incrementSequence(0x7fffffff, 1)).toBe(0);
    expect(incrementSequence(0x7ffffffe, 3)).toBe(1);
  });
  it('property: stays in [0, 2^31) and equals (s + i) mod 2^31', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 0, max: 0x7fffffff }), (s, i) => {
        const r = incrementSequence(s, i);
        expect(r).toBe((s + i) % 2 ** 31);
      }),
    );
  });
});

describe('classifyRefusedSequence', () => {
  const s = state({ '7': entry() }, { '7': 500 });
  it('the same last batch again: duplicate with its original base offset', () => {
    expect(classifyRefusedSequence(s, { producerId: 7, producerEpoch: 2, baseSequence: 10 }, 5)).toEqual({ kind: 'duplicate', baseOffset: 500 });
    // same base sequence, other count: not the same batch
    expect(verdict(s, 2, 10, 4)).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
  });
  it('the next sequence passes (the refusal was the tail\'s)', () => expect(verdict(s, 2, 15)).toBe('sequenceOk'));
  it('an older sequence of the same epoch: DUPLICATE_SEQUENCE_NUMBER', () => expect(verdict(s, 2, 3)).toBe('DUPLICATE_SEQUENCE_NUMBER'));
  it('a gap: OUT_OF_ORDER_SEQUENCE_NUMBER with the expected sequence', () => {
    const v = classifyRefusedSequence(s, { producerId: 7, producerEpoch: 2, baseSequence: 20 }, 1);
    expect(v).toMatchObject({ kind: 'error', error: { code: 'OUT_OF_ORDER_SEQUENCE_NUMBER', details: { expectedSequence: 15 } } });
  });
  it('an older epoch: INVALID_PRODUCER_EPOCH; a newer epoch must start at 0', () => {
    expect(verdict(s, 1, 15)).toBe('INVALID_PRODUCER_EPOCH');
    expect(verdict(s, 3, 0)).toBe('sequenceOk');
    expect(verdict(s, 3, 5)).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
  });
  it('no entry: UNKNOWN_PRODUCER_ID unless sequence 0; at sequence 0 the cap may be reached', () => {
    expect(verdict(state({}), 0, 5)).toBe('UNKNOWN_PRODUCER_ID');
    expect(verdict(state({}), 0, 0)).toBe('sequenceOk');
    const full = Object.fromEntries(Array.from({ length: MAX_PRODUCERS_PER_PARTITION }, (_, i) => [String(100 + i), entry()]));
    expect(verdict(state(full), 0, 0)).toBe('producerCapReached');
  });
  it('across the wrap: the sequence after 2^31 - 1 is 0, and a sequence just before the last is a duplicate', () => {
    const wrapped = state({ '7': entry({ baseSequence: 0x7ffffffe, lastSequence: 0x7fffffff, count: 2 }) });
    expect(verdict(wrapped, 2, 0)).toBe('sequenceOk');
    expect(verdict(wrapped, 2, 0x7ffffff0)).toBe('DUPLICATE_SEQUENCE_NUMBER');
  });
});
