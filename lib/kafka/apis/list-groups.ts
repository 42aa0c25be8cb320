// ListGroups (key 16), versions 0-2 (kafkajs up to 2, librdkafka 2.0 v0; 3+ are flexible, 4 adds
// the states filter): every group, Kafka and Sluice-native alike (lib/groups/classic-describe.ts),
// each with its protocol type (`consumer` for both kinds of consumer group).
import { listKafkaGroups } from '../../groups/classic-describe.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { ApiKey, type ListGroupsRequest, type ListGroupsResponse } from '../protocol/messages.js';
import { groupErrorCode, inGroupOrder } from './group-calls.js';

export const listGroupsApi: KafkaApi<ListGroupsRequest, ListGroupsResponse> = {
  apiKey: ApiKey.ListGroups,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 2,
  handle(_request, call) {
    return inGroupOrder(call, async () => {
      try {
        const groups = await listKafkaGroups(call.gateway.ctx);
        return { throttleTimeMs: 0, errorCode: KafkaError.NONE, groups: groups.map((g) => ({ groupId: g.group, protocolType: g.protocolType, groupState: g.state })) };
      } catch (e) {
        return { throttleTimeMs: 0, errorCode: groupErrorCode(e, 'list groups'), groups: [] };
      }
    });
  },
  errorResponse: (_request, errorCode) => ({ throttleTimeMs: 0, errorCode, groups: [] }),
};
