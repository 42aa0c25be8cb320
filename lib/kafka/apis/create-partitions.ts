// CreatePartitions (key 37), versions 0-3 (kafkajs uses up to 1, librdkafka 2.0 0; 2+ are
// flexible). `count` is the new total, as over HTTP (metadata/topics.ts addPartitions: the count
// only ever grows, conditionally, so concurrent callers cannot shrink it). A count not above the
// current one is INVALID_PARTITIONS, a manual assignment INVALID_REQUEST (every gateway leads every
// partition), a topic named twice INVALID_REQUEST; validateOnly checks and changes nothing.
import { SluiceError } from '../../errors.js';
import { addPartitions, requireTopic, validatePartitionCount, validateTopicName } from '../../metadata/topics.js';
import type { KafkaApi } from '../api-handler.js';
import { ApiKey, type CreatePartitionsRequest, type CreatePartitionsResponse } from '../protocol/messages.js';
import { duplicateError, duplicates, itemError, perItem } from './admin-results.js';

export const createPartitionsApi: KafkaApi<CreatePartitionsRequest, CreatePartitionsResponse> = {
  apiKey: ApiKey.CreatePartitions,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 3,
  async handle(request, call) {
    const ctx = call.gateway.ctx;
    const twice = duplicates(request.topics.map((t) => t.name));
    const results = await Promise.all(
      request.topics.map(async (t): Promise<CreatePartitionsResponse.CreatePartitionsTopicResult> => {
        if (twice.has(t.name)) return { name: t.name, ...itemError(duplicateError('topic', t.name), '') };
        const outcome = await perItem(`create partitions of ${t.name}`, async () => {
          validateTopicName(t.name);
          if (t.assignments !== null) {
            throw new SluiceError('INVALID_REQUEST', 'manual replica assignment is not supported: every partition is served by every gateway');
          }
          validatePartitionCount(t.count);
          if (!request.validateOnly) {
            await addPartitions(ctx, t.name, t.count);
            return;
          }
          const topic = await requireTopic(ctx, t.name);
          if (t.count <= topic.partitions) {
            throw new SluiceError('INVALID_PARTITIONS', `topic '${t.name}' has ${topic.partitions} partitions; the new count must be greater, got ${t.count}`);
          }
        });
        return { name: t.name, ...outcome };
      }),
    );
    const seen = new Set<string>();
    return { throttleTimeMs: 0, results: results.filter((r) => !seen.has(r.name!) && (seen.add(r.name!), true)) };
  },
  errorResponse(request, errorCode) {
    return { throttleTimeMs: 0, results: request.topics.map((t) => ({ name: t.name, errorCode, errorMessage: null })) };
  },
};
