// Segment object naming, as Kafka's tiered storage names remote segments:
//
//   <prefix>/<topic>/<partition>/<baseOffset, 20 digits>-<segmentId><suffix>
//
// with no leading slash when the prefix is ''. The 20-digit base offset makes a partition's
// objects list in offset order; the segment id makes every write's key unique, so a stale or
// retrying writer never overwrites an object someone else's manifest item points at.
import { randomBytes } from 'node:crypto';
import { padOffset } from '../metadata/keys.js';

export type SegmentSuffix = '.log' | '.index' | '.timeindex';

/** Folder holding one partition's objects, with the trailing slash (so `t/1/` never matches `t/10/`). */
export function partitionObjectPrefix(prefix: string, topic: string, partition: number): string {
  return `${prefix ? `${prefix}/` : ''}${topic}/${partition}/`;
}

export function segmentObjectKey(
  prefix: string,
  topic: string,
  partition: number,
  baseOffset: number,
  segmentId: string,
  suffix: SegmentSuffix,
): string {
  return `${partitionObjectPrefix(prefix, topic, partition)}${padOffset(baseOffset)}-${segmentId}${suffix}`;
}

/** A fresh segment id: the writer's leader epoch (for humans reading a bucket) and 64 random bits. */
export function newSegmentId(leaderEpoch: number): string {
  return `${leaderEpoch}-${randomBytes(8).toString('hex')}`;
}
