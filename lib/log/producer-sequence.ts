// Kafka's idempotent-producer rules for one partition (ProducerStateManager / ProducerAppendInfo),
// checked by the leader against the last batch it stored for the producer id:
//   - an older producer epoch is fenced: INVALID_PRODUCER_EPOCH;
//   - a new producer id, or a newer epoch of a known one, must start at sequence 0;
//   - the same epoch with the last batch's baseSequence and record count is a retry: acknowledged
//     with the ORIGINAL offsets and not written again;
//   - otherwise the batch must continue the sequence (last + 1, wrapping after 2^31 - 1 like
//     Kafka's DefaultRecordBatch.incrementSequence); anything else is OUT_OF_ORDER_SEQUENCE_NUMBER.
// Sluice keeps one batch per producer (Kafka keeps five), so only the latest batch is deduplicated.
import { SluiceError } from '../api/errors.js';
import type { ProducerBatchState } from '../metadata/types.js';

export interface ProducerBatch {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly baseSequence: number;
}

export type SequenceCheck =
  | { readonly kind: 'append'; readonly lastSequence: number }
  | { readonly kind: 'duplicate'; readonly baseOffset: number; readonly count: number }
  | { readonly kind: 'error'; readonly error: SluiceError };

const INT32_MAX = 0x7fff_ffff;

export function incrementSequence(sequence: number, increment: number): number {
  return sequence > INT32_MAX - increment ? increment - (INT32_MAX - sequence) - 1 : sequence + increment;
}

export function checkProducerSequence(last: ProducerBatchState | undefined, batch: ProducerBatch, count: number): SequenceCheck {
  const append: SequenceCheck = { kind: 'append', lastSequence: incrementSequence(batch.baseSequence, count - 1) };
  const outOfOrder = (expected: number): SequenceCheck => ({
    kind: 'error',
    error: new SluiceError(
      'OUT_OF_ORDER_SEQUENCE_NUMBER',
      `producer ${batch.producerId} epoch ${batch.producerEpoch}: expected sequence ${expected}, got ${batch.baseSequence}`,
      { expectedSequence: expected },
    ),
  });
  if (!last || batch.producerEpoch > last.producerEpoch) {
    return batch.baseSequence === 0 ? append : outOfOrder(0);
  }
  if (batch.producerEpoch < last.producerEpoch) {
    return {
      kind: 'error',
      error: new SluiceError(
        'INVALID_PRODUCER_EPOCH',
        `producer ${batch.producerId} epoch ${batch.producerEpoch} is fenced by epoch ${last.producerEpoch}`,
      ),
    };
  }
  if (batch.baseSequence === last.baseSequence && count === last.count) {
    return { kind: 'duplicate', baseOffset: last.baseOffset, count: last.count };
  }
  const expected = incrementSequence(last.lastSequence, 1);
  return batch.baseSequence === expected ? append : outOfOrder(expected);
}
