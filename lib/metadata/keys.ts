// Single-table layout of the Sluice metadata table (partition key `pk`, sort key `sk`, both strings).
//
//   pk                              sk                  item
//   TOPICS                          <topic>             topic: partitions, config, createdAt
//   PART#<topic>#<partition>        STATE               partition state: nextOffset, logStartOffset,
//                                                       lease owner/epoch/expiresAt, producer sequences,
//                                                       tail: the manifest's newest ranges (lib/log/partition-tail.ts)
//   PART#<topic>#<partition>        SEG#<base, 20 dig>  segment manifest item: object key + byte range, or
//                                                       a spilled tail's list of ranges
//   GROUP#<group>                   META                group: version, generation, assignor, members map
//                                                       (subscriptions, session expiry), assignment, pending
//                                                       handovers — one item, so one conditional write per
//                                                       change (lib/groups/group-state.ts)
//   GROUP#<group>                   OFFSET#<topic>#<p>  committed offset + metadata
//   GROUPS                          <group>             group directory entry (listing only)
//   PRODUCER                        NEXT                producer id allocator
//   MAINTENANCE                     LEASE | CURSOR |    the retention/compaction job's lease, resume cursor
//                                   SWEEP#<topic>       and sweep marks (lib/log/maintenance-store.ts)
//
// Listing topics and groups is a Query on a directory partition (TOPICS, GROUPS), never a Scan: a
// Scan would read every manifest item and cost in proportion to the whole log. Topic items live in
// the directory itself (few, small, read through a warm cache). A group's META is rewritten on every
// heartbeat, so it keeps its own partition and the directory holds only a marker written before
// the group's first META write and removed after its deletion.

export const OFFSET_DIGITS = 20;

/** Zero-padded 20-digit offset, as in Kafka's segment file names; sorts lexicographically = numerically. */
export function padOffset(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`bad offset ${offset}`);
  return String(offset).padStart(OFFSET_DIGITS, '0');
}

export const TOPICS_PK = 'TOPICS';
export const topicKey = (topic: string) => ({ pk: TOPICS_PK, sk: topic });
export const partitionPk = (topic: string, partition: number) => `PART#${topic}#${partition}`;
export const stateKey = (topic: string, partition: number) => ({ pk: partitionPk(topic, partition), sk: 'STATE' });
export const SEGMENT_PREFIX = 'SEG#';
export const segmentSk = (baseOffset: number) => `${SEGMENT_PREFIX}${padOffset(baseOffset)}`;
export const segmentKey = (topic: string, partition: number, baseOffset: number) => ({
  pk: partitionPk(topic, partition),
  sk: segmentSk(baseOffset),
});
export const groupPk = (group: string) => `GROUP#${group}`;
export const GROUPS_PK = 'GROUPS';
export const groupDirectoryKey = (group: string) => ({ pk: GROUPS_PK, sk: group });
