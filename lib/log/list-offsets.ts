// Kafka's ListOffsets for one partition: 'earliest' = logStartOffset, 'latest' = highWatermark
// (STATE's logEndOffset), a timestamp = the earliest offset whose record timestamp is >= it. For a
// timestamp the SEG items' maxTimestamp finds the first committed item that can hold such a record
// (then the ranges of STATE's tail, which are newer than every item), and decoding its ranges
// (from where a merged segment's time index points, offset-for-time.ts) finds the record. When no
// record is that late the answer is the high watermark (where Kafka answers -1 / the log end), so
// a consumer seeking there waits for new data.
import type { SluiceContext } from '../context.js';
import { toSluiceError } from '../metadata/aws-errors.js';
import { firstSegmentItemWithMaxTimestampAtLeast, floorSegmentItem } from '../metadata/manifest.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { ManifestRange, PartitionState, TopicRef } from '../metadata/types.js';
import { offsetForTimeInRange } from './offset-for-time.js';
import { StaleViewError } from './segment-fetch.js';
import { decodeEntries, rangesOf } from './manifest-entry.js';

const VIEW_REFRESHES = 2;

export async function listOffsets(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  at: 'earliest' | 'latest' | number,
): Promise<{ offset: number; timestamp?: number }> {
  try {
    return await listOffsetsWithRefresh(ctx, topic, partition, at);
  } catch (e) {
    throw toSluiceError(e, `list offsets of ${topic.name}-${partition}`);
  }
}

async function listOffsetsWithRefresh(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  at: 'earliest' | 'latest' | number,
): Promise<{ offset: number; timestamp?: number }> {
  for (let refresh = 0; ; refresh++) {
    const state = await getPartitionState(ctx, topic, partition);
    if (at === 'earliest') return { offset: state.logStartOffset };
    if (at === 'latest') return { offset: state.logEndOffset };
    try {
      return await offsetForTimestamp(ctx, topic, state, at);
    } catch (e) {
      if (!(e instanceof StaleViewError) || refresh === VIEW_REFRESHES) throw e;
    }
  }
}

async function offsetForTimestamp(
  ctx: SluiceContext,
  topic: TopicRef,
  state: PartitionState,
  timestamp: number,
): Promise<{ offset: number; timestamp?: number }> {
  const { partition, logStartOffset, logEndOffset: highWatermark, tailBase } = state;
  const tail = decodeEntries(ctx, tailBase, state.tail);
  const search = async (ranges: readonly ManifestRange[]) => {
    for (const range of ranges) {
      if (range.maxTimestamp < timestamp || range.lastOffset < logStartOffset || range.baseOffset >= highWatermark) continue;
      // Merged segments carry a .timeindex: the lookup reads from the batch it points to.
      const hit = await offsetForTimeInRange(ctx, range, timestamp, logStartOffset, highWatermark);
      if (hit) return hit;
    }
    return undefined;
  };
  // The SEG items below the tail, oldest first; logStartOffset may lie inside an item (records
  // below it are skipped by the offset check).
  let from = (await floorSegmentItem(ctx, topic, partition, logStartOffset))?.baseOffset ?? logStartOffset;
  while (from < tailBase) {
    const item = await firstSegmentItemWithMaxTimestampAtLeast(ctx, topic, partition, from, timestamp);
    if (!item || item.baseOffset >= Math.min(tailBase, highWatermark)) break;
    const hit = await search(rangesOf(ctx, item));
    if (hit) return hit;
    from = item.lastOffset + 1;
  }
  return (await search(tail)) ?? { offset: highWatermark };
}
