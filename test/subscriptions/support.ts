// Shared helpers of the subscription tests: a topic with records in it.
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import type { TopicRef } from '../../lib/metadata/types.js';

/** Appends `values` to one partition in one batch, with keys `k<i>` unless given, at `timestamp`. */
export async function appendValues(ctx: SluiceContext, topic: TopicRef, partition: number, values: readonly string[], timestamp = ctx.now(), keys?: readonly (string | null)[]): Promise<number> {
  const [result] = await appendToPartitions(ctx, topic, [
    {
      partition,
      records: values.map((v, i) => ({ timestamp, key: keys ? (keys[i] === null ? null : Buffer.from(keys[i]!)) : Buffer.from(`k${i}`), value: Buffer.from(v) })),
    },
  ]);
  if ('error' in result) throw result.error;
  return result.baseOffset;
}
