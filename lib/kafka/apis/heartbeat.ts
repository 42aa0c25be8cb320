// Heartbeat (key 12), versions 0-3 (both clients; 4+ are flexible), over
// lib/groups/classic-heartbeat.ts: REBALANCE_IN_PROGRESS tells the member to rejoin;
// UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION and FENCED_INSTANCE_ID as Kafka's coordinator answers.
import { classicHeartbeat } from '../../groups/classic-heartbeat.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { groupErrorCode, inGroupOrder } from './group-calls.js';
import { ApiKey, type HeartbeatRequest, type HeartbeatResponse } from '../protocol/messages.js';

export const heartbeatApi: KafkaApi<HeartbeatRequest, HeartbeatResponse> = {
  apiKey: ApiKey.Heartbeat,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 3,
  handle(request, call) {
    return inGroupOrder(call, async () => {
      try {
        await classicHeartbeat(call.gateway.ctx, {
          group: request.groupId,
          memberId: request.memberId,
          generation: request.generationId,
          groupInstanceId: call.apiVersion >= 3 ? request.groupInstanceId : null,
        });
        return { throttleTimeMs: 0, errorCode: KafkaError.NONE };
      } catch (e) {
        return { throttleTimeMs: 0, errorCode: groupErrorCode(e, `heartbeat to group '${request.groupId}'`) };
      }
    });
  },
  errorResponse: (_request, errorCode) => ({ throttleTimeMs: 0, errorCode }),
};
