// DescribeGroups (key 15), versions 0-2 (kafkajs up to 2, librdkafka 2.0 v0; 3 adds authorized
// operations, 5+ are flexible), over lib/groups/classic-describe.ts: Kafka groups with their
// members' metadata and assignment bytes, Sluice-native groups as consumer groups whose bytes
// are ConsumerProtocol subscriptions and assignments; a group that does not exist is Dead.
// Each group succeeds or fails on its own.
import { describeKafkaGroup } from '../../groups/classic-describe.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { ApiKey, type DescribeGroupsRequest, type DescribeGroupsResponse } from '../protocol/messages.js';
import { groupErrorCode, inGroupOrder } from './group-calls.js';

const failed = (groupId: string, errorCode: number): DescribeGroupsResponse.DescribedGroup => ({
  errorCode,
  groupId,
  groupState: '',
  protocolType: '',
  protocolData: '',
  members: [],
});

export const describeGroupsApi: KafkaApi<DescribeGroupsRequest, DescribeGroupsResponse> = {
  apiKey: ApiKey.DescribeGroups,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 2,
  handle(request, call) {
    return inGroupOrder(call, async () => {
      const groups = await Promise.all(
        request.groups.map(async (groupId): Promise<DescribeGroupsResponse.DescribedGroup> => {
          if (groupId === '') return failed(groupId, KafkaError.INVALID_GROUP_ID);
          try {
            const d = await describeKafkaGroup(call.gateway.ctx, groupId);
            return {
              errorCode: KafkaError.NONE,
              groupId,
              groupState: d.state,
              protocolType: d.protocolType,
              protocolData: d.protocol,
              members: d.members.map((m) => ({
                memberId: m.memberId,
                groupInstanceId: m.groupInstanceId,
                clientId: m.clientId,
                clientHost: m.clientHost,
                memberMetadata: m.metadata,
                memberAssignment: m.assignment,
              })),
            };
          } catch (e) {
            return failed(groupId, groupErrorCode(e, `describe group '${groupId}'`));
          }
        }),
      );
      return { throttleTimeMs: 0, groups };
    });
  },
  errorResponse: (request, errorCode) => ({ throttleTimeMs: 0, groups: request.groups.map((g) => failed(g, errorCode)) }),
};
