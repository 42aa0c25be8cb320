// JoinGroup (key 11), versions 0-5 (what kafkajs and librdkafka 2.0 use; 6+ are flexible), over
// lib/groups/classic-join.ts: the rendezvous runs through the group's DynamoDB item, so members
// of one group may join through different gateway processes. The request waits (polling the
// item) until the join phase ends, as a Kafka broker holds it. v0 has no rebalance timeout: the
// session timeout serves, as in Kafka. From v4 a member without an id is answered
// MEMBER_ID_REQUIRED with the id to join again with (both clients handle it). v5 adds
// group.instance.id (static membership).
//
// A waiting join stops when its connection closes: its gateway polls no more. The member stays
// joined, as Kafka's coordinator keeps a member whose JoinGroup connection died (it cannot tell):
// the join phase ends without waiting for it, and since no SyncGroup or heartbeat of its comes,
// its session expires and the group rebalances without it.
import { isSluiceError } from '../../errors.js';
import { joinClassicGroup } from '../../groups/classic-join.js';
import type { KafkaApi, KafkaCall } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { groupErrorCode, inGroupOrder } from './group-calls.js';
import { ApiKey, type JoinGroupRequest, type JoinGroupResponse } from '../protocol/messages.js';

/** Kafka writes the client's address with a leading slash (InetAddress.toString). */
export const clientHost = (call: KafkaCall) => `/${call.connection.remoteAddress}`;

const failed = (errorCode: number, memberId: string): JoinGroupResponse => ({
  throttleTimeMs: 0,
  errorCode,
  generationId: -1,
  protocolName: '',
  leader: '',
  memberId,
  members: [],
});

export const joinGroupApi: KafkaApi<JoinGroupRequest, JoinGroupResponse> = {
  apiKey: ApiKey.JoinGroup,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 5,
  handle(request, call) {
    return inGroupOrder(call, async () => {
      try {
        const joined = await joinClassicGroup(
          call.gateway.ctx,
          {
            group: request.groupId,
            memberId: request.memberId,
            groupInstanceId: call.apiVersion >= 5 ? request.groupInstanceId : null,
            protocolType: request.protocolType,
            protocols: request.protocols,
            sessionTimeoutMs: request.sessionTimeoutMs,
            rebalanceTimeoutMs: call.apiVersion >= 1 && request.rebalanceTimeoutMs > 0 ? request.rebalanceTimeoutMs : request.sessionTimeoutMs,
            clientId: call.clientId ?? '',
            clientHost: clientHost(call),
            requireKnownMemberId: call.apiVersion >= 4,
          },
          { signal: call.connection.signal },
        );
        return {
          throttleTimeMs: 0,
          errorCode: KafkaError.NONE,
          generationId: joined.generation,
          protocolName: joined.protocol,
          leader: joined.leader,
          memberId: joined.memberId,
          members: joined.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null, metadata: m.metadata })),
        };
      } catch (e) {
        if (call.connection.signal.aborted) return undefined; // the client is gone: nothing to answer
        if (isSluiceError(e) && e.code === 'MEMBER_ID_REQUIRED') return failed(KafkaError.MEMBER_ID_REQUIRED, e.details.memberId as string);
        return failed(groupErrorCode(e, `join group '${request.groupId}'`), request.memberId);
      }
    });
  },
  errorResponse: (request, errorCode) => failed(errorCode, request.memberId),
};
