// Single-table layout of the Sluice metadata table (partition key `pk`, sort key `sk`, both strings).
//
//   pk                              sk                  item
//   TOPIC#<topic>                   META                topic: partitions, config, createdAt
//   PART#<topic>#<partition>        STATE               partition state: nextOffset, logStartOffset,
//                                                       lease owner/epoch/expiresAt, producer sequences
//   PART#<topic>#<partition>        SEG#<base, 20 dig>  segment manifest item: object key + byte range
//   GROUP#<group>                   META                group: version, generation, assignor, members map
//                                                       (subscriptions, session expiry), assignment, pending
//                                                       handovers — one item, so one conditional write per
//                                                       change (lib/groups/group-state.ts)
//   GROUP#<group>                   OFFSET#<topic>#<p>  committed offset + metadata
//   PRODUCER                        NEXT                producer id allocator
//
// Topic listing uses a Scan filtered on sk = META and pk prefix TOPIC#, paged; group listing likewise.

export const OFFSET_DIGITS = 20;

/** Zero-padded 20-digit offset, as in Kafka's segment file names; sorts lexicographically = numerically. */
export function padOffset(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`bad offset ${offset}`);
  return String(offset).padStart(OFFSET_DIGITS, '0');
}

export const topicKey = (topic: string) => ({ pk: `TOPIC#${topic}`, sk: 'META' });
export const partitionPk = (topic: string, partition: number) => `PART#${topic}#${partition}`;
export const stateKey = (topic: string, partition: number) => ({ pk: partitionPk(topic, partition), sk: 'STATE' });
export const SEGMENT_PREFIX = 'SEG#';
export const segmentSk = (baseOffset: number) => `${SEGMENT_PREFIX}${padOffset(baseOffset)}`;
export const segmentKey = (topic: string, partition: number, baseOffset: number) => ({
  pk: partitionPk(topic, partition),
  sk: segmentSk(baseOffset),
});
export const groupPk = (group: string) => `GROUP#${group}`;
