// OffsetFetch (key 9), versions 0-5 (kafkajs 1-4, librdkafka 2.0 up to 7 lands on 5; 6+ are
// flexible; the range must reach 1-4: kafkajs fails on a broker whose max is 0), over
// lib/groups/classic-offsets.ts. A partition without a committed offset answers -1 with empty
// metadata, as Kafka does; from v2 topics may be null, meaning every partition the group
// committed. v2+ carry a top-level error code (v0-1 only the partitions' codes); v5 a leader
// epoch, always -1 here (Sluice stores none with a commit).
import { fetchKafkaOffsets } from '../../groups/classic-offsets.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { ApiKey, type OffsetFetchRequest, type OffsetFetchResponse } from '../protocol/messages.js';
import { groupErrorCode, inGroupOrder } from './group-calls.js';

const NO_EPOCH = -1;

const everywhere = (request: OffsetFetchRequest, errorCode: number): OffsetFetchResponse => ({
  throttleTimeMs: 0,
  errorCode,
  topics: (request.topics ?? []).map((t) => ({
    name: t.name,
    partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: NO_EPOCH, metadata: '', errorCode })),
  })),
});

export const offsetFetchApi: KafkaApi<OffsetFetchRequest, OffsetFetchResponse> = {
  apiKey: ApiKey.OffsetFetch,
  name: 'OffsetFetch',
  minVersion: 0,
  maxVersion: 5,
  handle(request, call) {
    return inGroupOrder(call, async () => {
      try {
        const wanted = request.topics === null ? null : request.topics.map((t) => ({ topic: t.name, partitions: t.partitionIndexes }));
        const offsets = await fetchKafkaOffsets(call.gateway.ctx, request.groupId, wanted);
        const topics = new Map<string, NonNullable<OffsetFetchResponse.OffsetFetchResponseTopic['partitions']>>();
        for (const o of offsets) {
          if (!topics.has(o.topic)) topics.set(o.topic, []);
          topics.get(o.topic)!.push({ partitionIndex: o.partition, committedOffset: BigInt(o.offset), committedLeaderEpoch: NO_EPOCH, metadata: o.metadata, errorCode: KafkaError.NONE });
        }
        return { throttleTimeMs: 0, errorCode: KafkaError.NONE, topics: [...topics].map(([name, partitions]) => ({ name, partitions })) };
      } catch (e) {
        return everywhere(request, groupErrorCode(e, `fetch offsets of group '${request.groupId}'`));
      }
    });
  },
  errorResponse: everywhere,
};
