// OffsetCommit (key 8), versions 0-7 (kafkajs up to 5, librdkafka 2.0 up to 7; 8+ are flexible),
// over lib/groups/classic-offsets.ts: the same `OFFSET#` items as the HTTP API, fenced by
// generation. v0 has no generation or member (a commit outside group membership, as generation -1
// is later); v2-4's retention time is ignored (Sluice keeps a group's offsets until the group is
// deleted); v6's leader epoch is not stored (every batch carries epoch 0); v7 adds
// group.instance.id. A group-level refusal (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
// REBALANCE_IN_PROGRESS, ...) is answered in every partition, as Kafka does.
import { commitKafkaOffsets } from '../../groups/classic-offsets.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError, kafkaCodeOf } from '../protocol/error-codes.js';
import { ApiKey, type OffsetCommitRequest, type OffsetCommitResponse } from '../protocol/messages.js';
import { groupErrorCode, inGroupOrder } from './group-calls.js';

const everywhere = (request: OffsetCommitRequest, errorCode: number): OffsetCommitResponse => ({
  throttleTimeMs: 0,
  topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
});

export const offsetCommitApi: KafkaApi<OffsetCommitRequest, OffsetCommitResponse> = {
  apiKey: ApiKey.OffsetCommit,
  name: 'OffsetCommit',
  minVersion: 0,
  maxVersion: 7,
  handle(request, call) {
    return inGroupOrder(call, async () => {
      const offsets = request.topics.flatMap((t) =>
        t.partitions.map((p) => ({
          topic: t.name,
          partition: p.partitionIndex,
          // Beyond 2^53 an offset cannot be one Sluice wrote: refused per partition as negative ones are.
          offset: p.committedOffset > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(p.committedOffset),
          metadata: p.committedMetadata,
        })),
      );
      try {
        const results = await commitKafkaOffsets(call.gateway.ctx, {
          group: request.groupId,
          generation: call.apiVersion >= 1 ? request.generationIdOrMemberEpoch : -1,
          memberId: call.apiVersion >= 1 ? request.memberId : '',
          groupInstanceId: call.apiVersion >= 7 ? request.groupInstanceId : null,
          offsets,
        });
        let i = 0;
        return {
          throttleTimeMs: 0,
          topics: request.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => {
              const r = results[i++];
              return { partitionIndex: p.partitionIndex, errorCode: r.error === undefined ? KafkaError.NONE : kafkaCodeOf(r.error) };
            }),
          })),
        };
      } catch (e) {
        return everywhere(request, groupErrorCode(e, `commit offsets of group '${request.groupId}'`));
      }
    });
  },
  errorResponse: everywhere,
};
