// Kafka's idempotent-producer rules for one partition (ProducerStateManager / ProducerAppendInfo).
// The append's conditional update enforces the happy path itself (partition-state.ts appendEntry:
// sequence 0 needs no entry or an older epoch; otherwise the same epoch and the previous sequence
// as the entry's last). When DynamoDB refuses it, the condition does not say why, so one consistent
// read of STATE decides (docs/ARCHITECTURE.md rule 5):
//   - the producer's last batch again (same epoch, base sequence and count): a retry, answered with
//     its ORIGINAL offsets and not written again;
//   - an older batch of the same epoch: DUPLICATE_SEQUENCE_NUMBER (Sluice remembers the last batch
//     per producer; Kafka's clients treat this answer as "already written");
//   - an older producer epoch: INVALID_PRODUCER_EPOCH (fenced);
//   - no entry for a sequence other than 0: UNKNOWN_PRODUCER_ID (expired, or never seen);
//   - a gap: OUT_OF_ORDER_SEQUENCE_NUMBER;
//   - a new producer while MAX_PRODUCERS_PER_PARTITION entries are held: expire idle ones or wait;
//   - anything else passes: the refusal was the tail's (or a race), and the update is tried again.
import { type ErrorCode, SluiceError } from '../errors.js';
import type { PartitionState } from '../metadata/types.js';

export interface ProducerBatch {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
}

/**
 * Idempotent producers' entries one partition holds at most: each takes ~110 bytes of STATE, which
 * every append rewrites (docs/ARCHITECTURE.md rule 6: STATE within 2 KB).
 */
export const MAX_PRODUCERS_PER_PARTITION = 8;
/**
 * A producer entry idle this long may be removed to make room for a new producer (Kafka keeps
 * them for producer.id.expiration.ms, a day; Sluice pays for every byte of STATE on every append).
 */
export const PRODUCER_ENTRY_IDLE_MS = 5 * 60_000;

const INT32_MAX = 0x7fff_ffff;

/** Kafka's DefaultRecordBatch.incrementSequence: sequences wrap after 2^31 - 1. */
export function incrementSequence(sequence: number, increment: number): number {
  return sequence > INT32_MAX - increment ? increment - (INT32_MAX - sequence) - 1 : sequence + increment;
}

export type RefusedSequenceVerdict =
  | { readonly kind: 'duplicate'; readonly baseOffset: number }
  | { readonly kind: 'error'; readonly error: SluiceError }
  | { readonly kind: 'producerCapReached' }
  | { readonly kind: 'sequenceOk' };

/** Why the update of an idempotent batch was refused, judged on STATE read after the refusal. */
export function classifyRefusedSequence(state: PartitionState, batch: ProducerBatch, count: number): RefusedSequenceVerdict {
  const id = String(batch.producerId);
  const last = state.producers[id];
  const error = (code: ErrorCode, message: string, details?: Record<string, unknown>): RefusedSequenceVerdict => ({
    kind: 'error',
    error: new SluiceError(code, `producer ${batch.producerId} epoch ${batch.producerEpoch}: ${message}`, details),
  });
  if (!last) {
    if (batch.baseSequence !== 0) return error('UNKNOWN_PRODUCER_ID', `no state for this producer (sequence ${batch.baseSequence}); it expired or never wrote here`);
    return Object.keys(state.producers).length >= MAX_PRODUCERS_PER_PARTITION ? { kind: 'producerCapReached' } : { kind: 'sequenceOk' };
  }
  if (batch.producerEpoch < last.producerEpoch) return error('INVALID_PRODUCER_EPOCH', `fenced by epoch ${last.producerEpoch}`);
  if (batch.producerEpoch > last.producerEpoch) {
    return batch.baseSequence === 0 ? { kind: 'sequenceOk' } : error('OUT_OF_ORDER_SEQUENCE_NUMBER', `a new epoch starts at sequence 0, got ${batch.baseSequence}`, { expectedSequence: 0 });
  }
  if (batch.baseSequence === last.baseSequence && count === last.count) {
    return { kind: 'duplicate', baseOffset: state.producerBases[id] };
  }
  const expected = incrementSequence(last.lastSequence, 1);
  if (batch.baseSequence === expected) return { kind: 'sequenceOk' };
  if (isBefore(batch.baseSequence, last.baseSequence)) {
    return error('DUPLICATE_SEQUENCE_NUMBER', `sequence ${batch.baseSequence} was written before the last batch (${last.baseSequence})`);
  }
  return error('OUT_OF_ORDER_SEQUENCE_NUMBER', `expected sequence ${expected}, got ${batch.baseSequence}`, { expectedSequence: expected });
}

/** Whether sequence `a` comes before `b`, within half the sequence space (they wrap). */
function isBefore(a: number, b: number): boolean {
  const distance = (b - a + INT32_MAX + 1) % (INT32_MAX + 1);
  return distance > 0 && distance < (INT32_MAX + 1) / 2;
}
