// Single-table layout of the Sluice metadata table (partition key `pk`, sort key `sk`, both strings).
//
//   pk                              sk                  item
//   TOPICS                          <topic>             topic: partitions, config, createdAt
//   PART#<topic>#<id>#<partition>   STATE               partition state: logEndOffset, logStartOffset,
//                                                       tailBase + tail (the manifest's newest entries),
//                                                       producer entries, leader lease owner/epoch/expiresAt
//   PART#<topic>#<id>#<partition>   SEG#<base, 20 dig>  manifest item: spilled tail entries, or a merged
//                                                       segment (object key + byte range + indexes)
//   GROUP#<group>                   META                group: version, generation, assignor, members map
//                                                       (subscriptions, session expiry), assignment, pending
//                                                       handovers — one item, so one conditional write per
//                                                       change (lib/groups/group-state.ts)
//   GROUP#<group>                   OFFSET#<topic>#<p>  committed offset + metadata
//   GROUPS                          <group>             group directory entry (listing only)
//   PRODUCER                        NEXT                producer id allocator
//   MAINTENANCE                     LEASE | CURSOR |    the maintenance job's lease, resume cursor
//                                   SWEEP#<topic>       and sweep marks (lib/metadata/maintenance-items.ts)
//
// Listing topics and groups is a Query on a directory partition (TOPICS, GROUPS), never a Scan: a
// Scan would read every manifest item and cost in proportion to the whole log. Topic items live in
// the directory itself (few, small, read through a warm cache). A group's META is rewritten on every
// heartbeat, so it keeps its own partition and the directory holds only a marker written before
// the group's first META write and removed after its deletion.

import type { TopicRef } from './types.js';

export const OFFSET_DIGITS = 20;

/** Zero-padded 20-digit offset, as in Kafka's segment file names; sorts lexicographically = numerically. */
export function padOffset(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`bad offset ${offset}`);
  return String(offset).padStart(OFFSET_DIGITS, '0');
}

export const TOPICS_PK = 'TOPICS';
export const topicKey = (topic: string) => ({ pk: TOPICS_PK, sk: topic });
/** `<id>` is the topic id (types.ts TopicRef): nothing of a deleted topic is ever read as its successor's. */
export const partitionPk = (topic: TopicRef, partition: number) => `PART#${topic.name}#${topic.id}#${partition}`;
export const stateKey = (topic: TopicRef, partition: number) => ({ pk: partitionPk(topic, partition), sk: 'STATE' });
export const SEGMENT_PREFIX = 'SEG#';
export const segmentSk = (baseOffset: number) => `${SEGMENT_PREFIX}${padOffset(baseOffset)}`;
export const segmentKey = (topic: TopicRef, partition: number, baseOffset: number) => ({
  pk: partitionPk(topic, partition),
  sk: segmentSk(baseOffset),
});
export const groupPk = (group: string) => `GROUP#${group}`;
export const GROUPS_PK = 'GROUPS';
export const groupDirectoryKey = (group: string) => ({ pk: GROUPS_PK, sk: group });
