// SyncGroup (key 14), versions 0-3 (both clients; 4+ are flexible), over
// lib/groups/classic-sync.ts: the leader's request stores every member's assignment in the group
// item; a follower's waits (polling the item, from any gateway process) until the leader's has.
// A waiting follower whose connection closes stops polling, and with it the session refreshes
// its wait writes: the member expires as any silent member does and the group rebalances.
import { syncClassicGroup } from '../../groups/classic-sync.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { groupErrorCode, inGroupOrder } from './group-calls.js';
import { ApiKey, type SyncGroupRequest, type SyncGroupResponse } from '../protocol/messages.js';

const failed = (errorCode: number): SyncGroupResponse => ({ throttleTimeMs: 0, errorCode, assignment: Buffer.alloc(0) });

export const syncGroupApi: KafkaApi<SyncGroupRequest, SyncGroupResponse> = {
  apiKey: ApiKey.SyncGroup,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 3,
  handle(request, call) {
    return inGroupOrder(call, async () => {
      try {
        const assignment = await syncClassicGroup(
          call.gateway.ctx,
          {
            group: request.groupId,
            memberId: request.memberId,
            generation: request.generationId,
            groupInstanceId: call.apiVersion >= 3 ? request.groupInstanceId : null,
            assignments: request.assignments,
          },
          call.connection.signal,
        );
        return { throttleTimeMs: 0, errorCode: KafkaError.NONE, assignment };
      } catch (e) {
        if (call.connection.signal.aborted) return undefined; // the client is gone: nothing to answer
        return failed(groupErrorCode(e, `sync group '${request.groupId}'`));
      }
    });
  },
  errorResponse: (_request, errorCode) => failed(errorCode),
};
