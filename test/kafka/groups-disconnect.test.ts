// A member whose client disconnects while its JoinGroup or SyncGroup waits in the DynamoDB
// rendezvous: its gateway stops polling at once (no storage request of that gateway after the
// disconnect), so nothing keeps the member alive but the rules every member lives by; the other
// member, joined through ANOTHER gateway on the same table, still completes its rebalance: the
// departed member's session expires and the group rebalances without it, as with Kafka.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { encodeAssignment, encodeSubscription } from '../../lib/groups/consumer-protocol.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { KafkaError } from '../../lib/kafka/protocol/error-codes.js';
import { ApiKey, type HeartbeatResponse, type JoinGroupResponse, type SyncGroupResponse } from '../../lib/kafka/protocol/messages.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { countStorageRequests, type RequestCounter } from '../../bench/request-counter.js';
import { otherProcess } from '../log/maintenance-support.js';
import { RawClient, requestFrame } from './raw-client.js';
import { rawCall } from './raw-call.js';
import { startTestGateway, type TestGateway } from './support.js';

/** The departed member's gateway (its own SDK clients, counted) and the survivor's. */
let gone: TestGateway;
let stays: TestGateway;
let goneRequests: RequestCounter;

beforeAll(async () => {
  stays = await startTestGateway();
  const ctx: SluiceContext = otherProcess(stays.ctx);
  goneRequests = countStorageRequests(ctx);
  gone = await startTestGateway({ ctx });
  await createTopic(stays.ctx, 'events', 2);
});
afterAll(async () => {
  await gone.close();
  await stays.close();
});

const SESSION_MS = 2000;

const joinBody = (group: string, memberId: string, sessionTimeoutMs: number) => ({
  groupId: group,
  sessionTimeoutMs,
  rebalanceTimeoutMs: 8000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: encodeSubscription(['events']) }],
});

/** JoinGroup v5 through `port`, with the MEMBER_ID_REQUIRED round trip when `memberId` is ''. */
async function join(port: number, group: string, memberId = '', sessionTimeoutMs = 6000): Promise<JoinGroupResponse> {
  const r = await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 5, joinBody(group, memberId, sessionTimeoutMs));
  return r.errorCode === KafkaError.MEMBER_ID_REQUIRED ? join(port, group, r.memberId!, sessionTimeoutMs) : r;
}

/** A member id the group handed out (MEMBER_ID_REQUIRED), not yet joined with. */
async function memberIdFor(port: number, group: string): Promise<string> {
  const r = await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 5, joinBody(group, '', SESSION_MS));
  expect(r.errorCode).toBe(KafkaError.MEMBER_ID_REQUIRED);
  return r.memberId!;
}

/** Sends one request on a connection of its own and leaves it waiting for the answer. */
async function sendAndLeaveWaiting(port: number, apiKey: number, version: number, body: object): Promise<RawClient> {
  const client = await RawClient.connect(port);
  client.write(requestFrame(apiKey, version, 7, body));
  return client;
}

const sync = (port: number, group: string, joined: JoinGroupResponse, assignments: { memberId: string; assignment: Buffer }[] = []) =>
  rawCall<SyncGroupResponse>(port, ApiKey.SyncGroup, 3, { groupId: group, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, assignments });

const heartbeat = (port: number, group: string, joined: JoinGroupResponse) =>
  rawCall<HeartbeatResponse>(port, ApiKey.Heartbeat, 3, { groupId: group, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, done: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

/** Drops the client's socket, lets a poll already in flight finish, then counts from zero. */
async function disconnect(client: RawClient): Promise<void> {
  client.close();
  await client.closed;
  await sleep(500);
  goneRequests.reset();
}

/** The survivor, a follower whose leader is gone, rejoins when the group rebalances and leads a generation of its own. */
async function rejoinsAlone(group: string, survivor: JoinGroupResponse): Promise<void> {
  await until('the group rebalances without the departed member', async () => {
    const hb = await heartbeat(stays.gateway.port, group, survivor);
    return hb.errorCode === KafkaError.REBALANCE_IN_PROGRESS;
  });
  const again = await join(stays.gateway.port, group, survivor.memberId!);
  expect(again).toMatchObject({ errorCode: 0, generationId: survivor.generationId! + 1, leader: survivor.memberId });
  expect(again.members!.map((m) => m.memberId)).toEqual([survivor.memberId]);
  const assigned = await sync(stays.gateway.port, group, again, [{ memberId: again.memberId!, assignment: encodeAssignment({ events: [0, 1] }) }]);
  expect(assigned.errorCode).toBe(0);
  const state = await readGroup(stays.ctx, group);
  expect(state?.classic?.state).toBe('Stable');
  expect(Object.keys(state!.members)).toEqual([survivor.memberId]);
}

describe('a client that disconnects while its group request waits', () => {
  it('JoinGroup: its gateway stops polling; the other member completes the rebalance, then one without it once its session expires', async () => {
    const group = 'join-then-gone';
    const goneId = await memberIdFor(gone.gateway.port, group);
    const waiting = await sendAndLeaveWaiting(gone.gateway.port, ApiKey.JoinGroup, 5, joinBody(group, goneId, SESSION_MS));
    await until('the member waits in the join phase', async () => (await readGroup(stays.ctx, group))?.members[goneId]?.classic?.awaitingJoin === true);
    const survivor = join(stays.gateway.port, group);
    await until('both members wait', async () => Object.keys((await readGroup(stays.ctx, group))?.members ?? {}).length === 2);
    await disconnect(waiting);

    // The join phase ends (the departed member had rejoined, so it is in the generation, and leads it).
    const joined = await survivor;
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, leader: goneId });
    // Its leader never syncs: the follower's SyncGroup waits until the leader's session is over.
    const followerSync = await sync(stays.gateway.port, group, joined);
    expect(followerSync.errorCode).toBe(KafkaError.REBALANCE_IN_PROGRESS);
    await rejoinsAlone(group, joined);
    expect(goneRequests.total('ddb:')).toBe(0);
  });

  it('SyncGroup: its gateway stops polling (and refreshing the session); the group rebalances without it', async () => {
    const group = 'sync-then-gone';
    const leaderId = await memberIdFor(stays.gateway.port, group);
    const goneId = await memberIdFor(gone.gateway.port, group);
    const leading = join(stays.gateway.port, group, leaderId);
    await until('the first member waits in the join phase', async () => (await readGroup(stays.ctx, group))?.members[leaderId]?.classic?.awaitingJoin === true);
    const [leader, follower] = await Promise.all([leading, join(gone.gateway.port, group, goneId, SESSION_MS)]);
    expect(leader).toMatchObject({ errorCode: 0, leader: leaderId });
    expect(follower).toMatchObject({ errorCode: 0, generationId: leader.generationId });
    const waiting = await sendAndLeaveWaiting(gone.gateway.port, ApiKey.SyncGroup, 3, {
      groupId: group,
      generationId: follower.generationId,
      memberId: goneId,
      groupInstanceId: null,
      assignments: [],
    });
    await sleep(300);
    await disconnect(waiting);
    // Longer than a waiting follower's session refresh interval: nothing is read or written for it.
    await sleep(SESSION_MS / 2);
    expect(goneRequests.total('ddb:')).toBe(0);
    const led = await sync(stays.gateway.port, group, leader, [
      { memberId: leaderId, assignment: encodeAssignment({ events: [0] }) },
      { memberId: goneId, assignment: encodeAssignment({ events: [1] }) },
    ]);
    expect([KafkaError.NONE, KafkaError.REBALANCE_IN_PROGRESS]).toContain(led.errorCode);
    await rejoinsAlone(group, leader);
    expect(goneRequests.total('ddb:')).toBe(0);
  });
});
