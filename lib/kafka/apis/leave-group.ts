// LeaveGroup (key 13), versions 0-3 (kafkajs up to 3, librdkafka 2.0 up to 1; 4+ are flexible),
// over lib/groups/classic-leave.ts. v0-2 name one member and answer with one error code; v3 names
// a batch of members (by member id or group.instance.id) and answers each.
import { leaveClassicGroup } from '../../groups/classic-leave.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError, kafkaCodeOf } from '../protocol/error-codes.js';
import { groupErrorCode, inGroupOrder } from './group-calls.js';
import { ApiKey, type LeaveGroupRequest, type LeaveGroupResponse } from '../protocol/messages.js';

export const leaveGroupApi: KafkaApi<LeaveGroupRequest, LeaveGroupResponse> = {
  apiKey: ApiKey.LeaveGroup,
  name: 'LeaveGroup',
  minVersion: 0,
  maxVersion: 3,
  handle(request, call) {
    return inGroupOrder(call, async () => {
      const batch = call.apiVersion >= 3;
      const leaving = batch
        ? request.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId }))
        : [{ memberId: request.memberId, groupInstanceId: null }];
      if (request.groupId === '') return { throttleTimeMs: 0, errorCode: KafkaError.INVALID_GROUP_ID, members: [] };
      try {
        const results = await leaveClassicGroup(call.gateway.ctx, request.groupId, leaving);
        const code = (error: (typeof results)[number]['error']) => (error === undefined ? KafkaError.NONE : kafkaCodeOf(error));
        if (!batch) return { throttleTimeMs: 0, errorCode: code(results[0].error) };
        return {
          throttleTimeMs: 0,
          errorCode: KafkaError.NONE,
          members: results.map((r) => ({ memberId: r.memberId, groupInstanceId: r.groupInstanceId, errorCode: code(r.error) })),
        };
      } catch (e) {
        return { throttleTimeMs: 0, errorCode: groupErrorCode(e, `leave group '${request.groupId}'`), members: [] };
      }
    });
  },
  errorResponse: (_request, errorCode) => ({ throttleTimeMs: 0, errorCode, members: [] }),
};
