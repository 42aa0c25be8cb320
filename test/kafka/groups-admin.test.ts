// The group APIs through the gateway, version by version: kafkajs's admin client lists and
// describes a Kafka group and a Sluice-native (HTTP) group as the consumer groups they both are,
// and fetches committed offsets; raw requests cover what kafkajs does not send (FindCoordinator
// for transactions, JoinGroup v0 without MEMBER_ID_REQUIRED, LeaveGroup v0 and v3, OffsetCommit v0
// and v7, OffsetFetch with null topics, DescribeGroups v0 of a group that does not exist).
import { AssignerProtocol } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAssignment, encodeSubscription } from '../../lib/groups/consumer-protocol.js';
import { heartbeat, joinGroup } from '../../lib/groups/membership.js';
import { KafkaError } from '../../lib/kafka/protocol/error-codes.js';
import {
  ApiKey,
  type DescribeGroupsResponse,
  type FindCoordinatorResponse,
  type JoinGroupResponse,
  type LeaveGroupResponse,
  type OffsetCommitResponse,
  type OffsetFetchResponse,
  type SyncGroupResponse,
} from '../../lib/kafka/protocol/messages.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { rawCall } from './raw-call.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let port: number;

beforeAll(async () => {
  kafka = await startTestGateway();
  port = kafka.gateway.port;
  await createTopic(kafka.ctx, 'orders', 3);
});
afterAll(() => kafka.close());

const joinRequest = (group: string, memberId = '') => ({
  groupId: group,
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 10_000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'roundrobin', metadata: encodeSubscription(['orders']) }],
});

/** A one-member Kafka group, Stable, owning every partition of `orders`. */
async function kafkaGroup(group: string): Promise<JoinGroupResponse> {
  const first = await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 4, joinRequest(group));
  expect(first.errorCode).toBe(KafkaError.MEMBER_ID_REQUIRED);
  expect(first.memberId).toMatch(/^raw-[0-9a-f-]{36}$/);
  const joined = await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 4, joinRequest(group, first.memberId));
  expect(joined).toMatchObject({ errorCode: 0, generationId: 1, leader: first.memberId, memberId: first.memberId, protocolName: 'roundrobin' });
  const synced = await rawCall<SyncGroupResponse>(port, ApiKey.SyncGroup, 3, {
    groupId: group,
    generationId: joined.generationId,
    memberId: joined.memberId,
    groupInstanceId: null,
    assignments: [{ memberId: joined.memberId, assignment: encodeAssignment({ orders: [0, 1, 2] }) }],
  });
  expect(synced.errorCode).toBe(0);
  return joined;
}

describe('group APIs through the gateway', () => {
  it('kafkajs admin lists and describes Kafka and HTTP groups alike, and fetches their offsets', async () => {
    const joined = await kafkaGroup('kafka-app');
    const http = await joinGroup(kafka.ctx, { group: 'http-app', clientId: 'http-client', topics: ['orders'], sessionTimeoutMs: 10_000 });
    await heartbeat(kafka.ctx, 'http-app', http.memberId, http.generation); // acknowledges its assignment: Stable
    const commit = await rawCall<OffsetCommitResponse>(port, ApiKey.OffsetCommit, 7, {
      groupId: 'kafka-app',
      generationIdOrMemberEpoch: joined.generationId,
      memberId: joined.memberId,
      groupInstanceId: null,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: 'meta' }] }],
    });
    expect(commit.topics).toEqual([{ name: 'orders', partitions: [{ partitionIndex: 1, errorCode: 0 }] }]);

    const admin = kafka.client().admin();
    await admin.connect();
    try {
      const { groups } = await admin.listGroups();
      expect(groups.sort((a, b) => a.groupId.localeCompare(b.groupId))).toEqual([
        { groupId: 'http-app', protocolType: 'consumer' },
        { groupId: 'kafka-app', protocolType: 'consumer' },
      ]);
      const described = await admin.describeGroups(['kafka-app', 'http-app']);
      const [k, h] = described.groups;
      expect(k).toMatchObject({ groupId: 'kafka-app', state: 'Stable', protocolType: 'consumer', protocol: 'roundrobin', errorCode: 0 });
      expect(k.members).toHaveLength(1);
      expect(k.members[0]).toMatchObject({ memberId: joined.memberId, clientId: 'raw', clientHost: '/127.0.0.1' });
      expect(AssignerProtocol.MemberMetadata.decode(k.members[0].memberMetadata)?.topics).toEqual(['orders']);
      expect(AssignerProtocol.MemberAssignment.decode(k.members[0].memberAssignment)?.assignment).toEqual({ orders: [0, 1, 2] });
      expect(h).toMatchObject({ groupId: 'http-app', state: 'Stable', protocolType: 'consumer', protocol: 'range' });
      expect(h.members[0].clientId).toBe('http-client');
      expect(AssignerProtocol.MemberMetadata.decode(h.members[0].memberMetadata)?.topics).toEqual(['orders']);
      expect(AssignerProtocol.MemberAssignment.decode(h.members[0].memberAssignment)?.assignment).toEqual({ orders: [0, 1, 2] });

      const offsets = await admin.fetchOffsets({ groupId: 'kafka-app', topics: ['orders'] });
      expect(offsets).toEqual([
        {
          topic: 'orders',
          partitions: [
            { partition: 0, offset: '-1', metadata: null },
            { partition: 1, offset: '42', metadata: 'meta' },
            { partition: 2, offset: '-1', metadata: null },
          ],
        },
      ]);
    } finally {
      await admin.disconnect();
    }
  });

  it('FindCoordinator names the gateway for groups; transactions have no coordinator', async () => {
    for (const version of [0, 1, 2]) {
      const found = await rawCall<FindCoordinatorResponse>(port, ApiKey.FindCoordinator, version, { key: 'g', keyType: 0 });
      expect(found).toMatchObject({ errorCode: 0, nodeId: kafka.gateway.port === port ? 0 : 0, host: '127.0.0.1', port });
    }
    const txn = await rawCall<FindCoordinatorResponse>(port, ApiKey.FindCoordinator, 2, { key: 'tx', keyType: 1 });
    expect(txn.errorCode).toBe(KafkaError.COORDINATOR_NOT_AVAILABLE);
    expect(txn.errorMessage).toMatch(/no transactions/);
    expect((await rawCall<FindCoordinatorResponse>(port, ApiKey.FindCoordinator, 1, { key: 'x', keyType: 7 })).errorCode).toBe(KafkaError.INVALID_REQUEST);
  });

  it('JoinGroup v0 takes a member without id at once; bad session timeouts and empty group ids are refused; LeaveGroup v0 and v3', async () => {
    const v0 = await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 0, { ...joinRequest('old-client'), sessionTimeoutMs: 6000 });
    expect(v0).toMatchObject({ errorCode: 0, generationId: 1 });
    expect(v0.memberId).toBe(v0.leader);
    expect((await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 5, { ...joinRequest('g'), sessionTimeoutMs: 10 })).errorCode).toBe(KafkaError.INVALID_SESSION_TIMEOUT);
    expect((await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 5, joinRequest(''))).errorCode).toBe(KafkaError.INVALID_GROUP_ID);
    expect((await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 5, joinRequest('old-client', 'nobody'))).errorCode).toBe(KafkaError.UNKNOWN_MEMBER_ID);
    // A Sluice-native group with live members refuses Kafka members.
    await joinGroup(kafka.ctx, { group: 'busy-http', clientId: 'c', topics: ['orders'], sessionTimeoutMs: 10_000 });
    expect((await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 5, joinRequest('busy-http'))).errorCode).toBe(KafkaError.INCONSISTENT_GROUP_PROTOCOL);

    const batch = await rawCall<LeaveGroupResponse>(port, ApiKey.LeaveGroup, 3, {
      groupId: 'old-client',
      members: [
        { memberId: v0.memberId, groupInstanceId: null },
        { memberId: 'nobody', groupInstanceId: null },
      ],
    });
    expect(batch).toMatchObject({ errorCode: 0, members: [{ memberId: v0.memberId, errorCode: 0 }, { memberId: 'nobody', errorCode: KafkaError.UNKNOWN_MEMBER_ID }] });
    expect((await rawCall<LeaveGroupResponse>(port, ApiKey.LeaveGroup, 0, { groupId: 'old-client', memberId: v0.memberId })).errorCode).toBe(KafkaError.UNKNOWN_MEMBER_ID);
    const empty = await rawCall<DescribeGroupsResponse>(port, ApiKey.DescribeGroups, 0, { groups: ['old-client', 'never-made'] });
    expect(empty.groups?.map((g) => [g.groupId, g.groupState, g.errorCode])).toEqual([
      ['old-client', 'Empty', 0],
      ['never-made', 'Dead', 0],
    ]);
  });

  it('OffsetCommit v0 commits outside membership; OffsetFetch v2 with null topics answers every committed partition; a live group refuses a memberless commit', async () => {
    const v0 = await rawCall<OffsetCommitResponse>(port, ApiKey.OffsetCommit, 0, {
      groupId: 'standalone',
      topics: [
        {
          name: 'orders',
          partitions: [
            { partitionIndex: 0, committedOffset: 7n, committedMetadata: null },
            { partitionIndex: 9, committedOffset: 7n, committedMetadata: null },
          ],
        },
        { name: '', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] },
      ],
    });
    expect(v0.topics).toEqual([
      { name: 'orders', partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 9, errorCode: KafkaError.UNKNOWN_TOPIC_OR_PARTITION }] },
      { name: '', partitions: [{ partitionIndex: 0, errorCode: KafkaError.UNKNOWN_TOPIC_OR_PARTITION }] },
    ]);
    const all = await rawCall<OffsetFetchResponse>(port, ApiKey.OffsetFetch, 2, { groupId: 'standalone', topics: null });
    expect(all).toMatchObject({ errorCode: 0, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 7n, metadata: '', errorCode: 0 }] }] });
    const none = await rawCall<OffsetFetchResponse>(port, ApiKey.OffsetFetch, 1, { groupId: 'nobody-committed', topics: [{ name: 'orders', partitionIndexes: [2] }] });
    expect(none.topics).toMatchObject([{ name: 'orders', partitions: [{ partitionIndex: 2, committedOffset: -1n, metadata: '', errorCode: 0 }] }]);

    await kafkaGroup('live');
    const refused = await rawCall<OffsetCommitResponse>(port, ApiKey.OffsetCommit, 5, {
      groupId: 'live',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      retentionTimeMs: -1n,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }],
    });
    expect(refused.topics?.[0].partitions?.[0].errorCode).toBe(KafkaError.UNKNOWN_MEMBER_ID);
  });
});
