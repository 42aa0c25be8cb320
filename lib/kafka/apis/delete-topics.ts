// DeleteTopics (key 20), versions 0-6 (kafkajs and librdkafka 2.0 use up to 1; 4+ are flexible,
// 5 adds error messages, 6 names a topic by name or by id). Each topic goes through
// lib/log/delete-topic.ts, as over HTTP: the topic disappears at once, its data follows. A topic
// that does not exist is UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID when named by id), one named
// twice (or by both name and id) is INVALID_REQUEST.
import { deleteTopic } from '../../log/delete-topic.js';
import { listTopics, validateTopicName } from '../../metadata/topics.js';
import { SluiceError } from '../../errors.js';
import type { KafkaApi } from '../api-handler.js';
import { ZERO_UUID } from '../protocol/codec.js';
import { KafkaError } from '../protocol/error-codes.js';
import { ApiKey, type DeleteTopicsRequest, type DeleteTopicsResponse } from '../protocol/messages.js';
import { topicUuid } from '../topic-id.js';
import { duplicateError, duplicates, itemError, kafkaItemError, perItem } from './admin-results.js';

/** A topic the request names: by name (v0-6) or by id (v6). */
interface Named {
  readonly name: string | null;
  readonly topicId: string;
}

function namedTopics(request: DeleteTopicsRequest, version: number): Named[] {
  return version >= 6 ? request.topics.map((t) => ({ name: t.name, topicId: t.topicId })) : request.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
}

export const deleteTopicsApi: KafkaApi<DeleteTopicsRequest, DeleteTopicsResponse> = {
  apiKey: ApiKey.DeleteTopics,
  name: 'DeleteTopics',
  minVersion: 0,
  maxVersion: 6,
  async handle(request, call) {
    const ctx = call.gateway.ctx;
    const named = namedTopics(request, call.apiVersion);
    // Topics named by id only: their names, from one listing.
    const byId = named.some((t) => t.name === null) ? new Map((await listTopics(ctx)).map((t) => [topicUuid(t.id), t.name])) : new Map<string, string>();
    const resolved = named.map((t) => ({ ...t, resolvedName: t.name ?? (t.topicId === ZERO_UUID ? undefined : byId.get(t.topicId)) }));
    const twice = duplicates(resolved.flatMap((t) => (t.resolvedName === undefined || (t.name !== null && t.topicId !== ZERO_UUID) ? [] : [t.resolvedName])));
    const responses = await Promise.all(
      resolved.map(async (t): Promise<DeleteTopicsResponse.DeletableTopicResult> => {
        if (t.name !== null && t.topicId !== ZERO_UUID) {
          return { name: t.name, topicId: t.topicId, ...itemError(new SluiceError('INVALID_REQUEST', 'name a topic by its name or by its id, not both'), '') };
        }
        if (t.resolvedName === undefined) {
          return { name: null, topicId: t.topicId, ...kafkaItemError(KafkaError.UNKNOWN_TOPIC_ID, `no topic has id ${t.topicId}`) };
        }
        const name = t.resolvedName;
        if (twice.has(name)) return { name, topicId: t.topicId, ...itemError(duplicateError('topic', name), '') };
        const outcome = await perItem(`delete topic ${name}`, async () => {
          validateTopicName(name);
          await deleteTopic(ctx, name);
        });
        // A topic named by id that was deleted meanwhile is that id's answer, not the name's.
        if (t.name === null && outcome.errorCode === KafkaError.UNKNOWN_TOPIC_OR_PARTITION) {
          return { name: null, topicId: t.topicId, ...kafkaItemError(KafkaError.UNKNOWN_TOPIC_ID, `no topic has id ${t.topicId}`) };
        }
        return { name, topicId: t.topicId, ...outcome };
      }),
    );
    return { throttleTimeMs: 0, responses };
  },
  errorResponse(request, errorCode, call) {
    return {
      throttleTimeMs: 0,
      responses: namedTopics(request, call.apiVersion).map((t) => ({ name: t.name, topicId: t.topicId, errorCode, errorMessage: null })),
    };
  },
};

