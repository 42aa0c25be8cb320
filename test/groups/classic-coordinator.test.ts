// The classic group coordinator against the DynamoDB emulator: members joined through separate
// "processes" (each its own context and SDK clients, test/proof/processes.ts) meet in one
// JoinGroup rendezvous through the group item alone, the leader's SyncGroup releases the waiting
// followers, generations fence commits, and describe / list / offsets read the Kafka group
// exactly as they read a Sluice-native one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { SluiceError } from '../../lib/errors.js';
import { describeKafkaGroup, listKafkaGroups } from '../../lib/groups/classic-describe.js';
import { classicHeartbeat } from '../../lib/groups/classic-heartbeat.js';
import { joinClassicGroup, type ClassicJoinRequest } from '../../lib/groups/classic-join.js';
import { leaveClassicGroup } from '../../lib/groups/classic-leave.js';
import { commitKafkaOffsets, fetchKafkaOffsets } from '../../lib/groups/classic-offsets.js';
import type { ClassicJoinResponse } from '../../lib/groups/classic-state.js';
import { syncClassicGroup } from '../../lib/groups/classic-sync.js';
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../../lib/groups/consumer-protocol.js';
import { describeGroup } from '../../lib/groups/describe.js';
import { joinGroup } from '../../lib/groups/membership.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { startProcess, stopProcess } from '../proof/processes.js';
import { createTestContext } from '../support/storage.js';

let ctx: SluiceContext;
let processes: SluiceContext[];

beforeAll(async () => {
  ctx = await createTestContext();
  processes = [0, 1, 2, 3].map(() => startProcess(ctx));
  await createTopic(ctx, 't', 6);
});
afterAll(() => processes.forEach(stopProcess));

const request = (group: string, over: Partial<ClassicJoinRequest> = {}): ClassicJoinRequest => ({
  group,
  memberId: '',
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'roundrobin', metadata: encodeSubscription(['t']) }],
  sessionTimeoutMs: 4000,
  rebalanceTimeoutMs: 8000,
  clientId: 'app',
  clientHost: '/127.0.0.1',
  requireKnownMemberId: true,
  ...over,
});

/** JoinGroup as a v4+ client does it: MEMBER_ID_REQUIRED, then again with the id. */
async function kafkaJoin(p: SluiceContext, group: string, memberId = ''): Promise<ClassicJoinResponse> {
  try {
    return await joinClassicGroup(p, request(group, { memberId }), { initialRebalanceDelayMs: 2000 });
  } catch (e) {
    if (e instanceof SluiceError && e.code === 'MEMBER_ID_REQUIRED') return kafkaJoin(p, group, e.details.memberId as string);
    throw e;
  }
}

function roundRobin(leader: ClassicJoinResponse) {
  const ids = leader.members.map((m) => m.memberId);
  return ids.map((memberId, i) => ({ memberId, assignment: encodeAssignment({ t: [0, 1, 2, 3, 4, 5].filter((p) => p % ids.length === i) }) }));
}

/** Every member syncs (the leader with the assignment); returns each member's partitions. */
async function syncAll(group: string, joins: ClassicJoinResponse[]): Promise<Map<string, number[]>> {
  const out = await Promise.all(
    joins.map(async (j, i) => {
      const leader = j.leader === j.memberId;
      if (!leader) await new Promise((r) => setTimeout(r, 50)); // followers usually arrive first
      const bytes = await syncClassicGroup(processes[i], { group, memberId: j.memberId, generation: j.generation, groupInstanceId: null, assignments: leader ? roundRobin(j) : [] });
      return [j.memberId, decodeAssignment(bytes)?.t ?? []] as const;
    }),
  );
  return new Map(out);
}

describe('classic coordinator on DynamoDB', () => {
  it('three members joining through three processes get one generation, one leader, and a complete assignment', async () => {
    const joins = await Promise.all([0, 1, 2].map((i) => kafkaJoin(processes[i], 'g1')));
    expect(new Set(joins.map((j) => j.generation)).size).toBe(1);
    expect(new Set(joins.map((j) => j.leader)).size).toBe(1);
    const leader = joins.find((j) => j.leader === j.memberId)!;
    expect(leader.members.map((m) => m.memberId).sort()).toEqual(joins.map((j) => j.memberId).sort());
    expect(joins.filter((j) => j !== leader).every((j) => j.members.length === 0)).toBe(true);

    const assigned = await syncAll('g1', joins);
    expect([...assigned.values()].flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const partitions of assigned.values()) expect(partitions).toHaveLength(2);

    // Describe over HTTP's function and over Kafka's both show the group.
    const described = await describeGroup(ctx, 'g1');
    expect(described).toMatchObject({ state: 'Stable', generation: leader.generation, assignor: 'roundrobin' });
    expect(described.members.map((m) => [m.memberId, m.topics, m.assignment[0]?.partitions])).toEqual(
      [...assigned.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, ps]) => [id, ['t'], ps]),
    );
    const kafka = await describeKafkaGroup(ctx, 'g1');
    expect(kafka).toMatchObject({ state: 'Stable', protocolType: 'consumer', protocol: 'roundrobin' });
    expect(kafka.members).toHaveLength(3);
    expect(await listKafkaGroups(ctx)).toContainEqual({ group: 'g1', protocolType: 'consumer', state: 'Stable' });

    // Offsets: committed with the generation, fetched back, seen by describe with lag.
    const memberId = leader.memberId;
    const committed = await commitKafkaOffsets(ctx, {
      group: 'g1',
      generation: leader.generation,
      memberId,
      groupInstanceId: null,
      offsets: [
        { topic: 't', partition: 0, offset: 0, metadata: 'm' },
        { topic: 't', partition: 9, offset: 1, metadata: null },
        { topic: 'nope', partition: 0, offset: 1, metadata: null },
        { topic: 't', partition: 1, offset: 0, metadata: 'x'.repeat(5000) },
      ],
    });
    expect(committed.map((c) => c.error)).toEqual([undefined, 'UNKNOWN_TOPIC_OR_PARTITION', 'UNKNOWN_TOPIC_OR_PARTITION', 'OFFSET_METADATA_TOO_LARGE']);
    expect(await fetchKafkaOffsets(ctx, 'g1', [{ topic: 't', partitions: [0, 1] }])).toEqual([
      { topic: 't', partition: 0, offset: 0, metadata: 'm' },
      { topic: 't', partition: 1, offset: -1, metadata: '' },
    ]);
    expect(await fetchKafkaOffsets(ctx, 'g1', null)).toEqual([{ topic: 't', partition: 0, offset: 0, metadata: 'm' }]);
    await expect(commitKafkaOffsets(ctx, { group: 'g1', generation: leader.generation - 1, memberId, groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 1, metadata: null }] })).rejects.toMatchObject({
      code: 'ILLEGAL_GENERATION',
    });
    await expect(commitKafkaOffsets(ctx, { group: 'g1', generation: -1, memberId: '', groupInstanceId: null, offsets: [{ topic: 't', partition: 0, offset: 1, metadata: null }] })).rejects.toMatchObject({
      code: 'UNKNOWN_MEMBER_ID',
    });
    // A Sluice-native member cannot join while Kafka members are live.
    await expect(joinGroup(ctx, { group: 'g1', clientId: 'http', topics: ['t'], sessionTimeoutMs: 4000 })).rejects.toMatchObject({ code: 'INCONSISTENT_GROUP_PROTOCOL' });
  });

  it('a fourth member starts a rebalance: heartbeats answer REBALANCE_IN_PROGRESS, everyone rejoins into the next generation, old-generation commits are fenced', async () => {
    const first = await Promise.all([0, 1, 2].map((i) => kafkaJoin(processes[i], 'g2')));
    await syncAll('g2', first);
    const generation = first[0].generation;

    const newcomer = kafkaJoin(processes[3], 'g2');
    // The others learn of the rebalance by heartbeat (the newcomer waits in JoinGroup meanwhile).
    await expect
      .poll(() => classicHeartbeat(ctx, { group: 'g2', memberId: first[0].memberId, generation, groupInstanceId: null }).then(() => 'none', (e) => e.code), { timeout: 5000 })
      .toBe('REBALANCE_IN_PROGRESS');
    const rejoined = await Promise.all(first.map((j, i) => kafkaJoin(processes[i], 'g2', j.memberId)));
    const all = [...rejoined, await newcomer];
    expect(new Set(all.map((j) => j.generation))).toEqual(new Set([generation + 1]));
    const assigned = await syncAll('g2', all);
    expect([...assigned.values()].flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);

    const stale = await commitKafkaOffsets(ctx, { group: 'g2', generation: generation + 1, memberId: all[0].memberId, groupInstanceId: null, offsets: [{ topic: 't', partition: 2, offset: 5, metadata: null }] });
    expect(stale).toEqual([{ topic: 't', partition: 2 }]);
    await expect(commitKafkaOffsets(ctx, { group: 'g2', generation, memberId: all[0].memberId, groupInstanceId: null, offsets: [{ topic: 't', partition: 2, offset: 1, metadata: null }] })).rejects.toMatchObject({
      code: 'ILLEGAL_GENERATION',
    });

    // Everyone leaves: Empty, with a new generation; an HTTP member may now take the group over.
    const left = await leaveClassicGroup(ctx, 'g2', all.map((j) => ({ memberId: j.memberId, groupInstanceId: null })));
    expect(left.every((l) => l.error === undefined)).toBe(true);
    expect((await describeKafkaGroup(ctx, 'g2')).state).toBe('Empty');
    const native = await joinGroup(ctx, { group: 'g2', clientId: 'http', topics: ['t'], sessionTimeoutMs: 4000 });
    expect(native.generation).toBeGreaterThan(generation + 1);
    expect((await fetchKafkaOffsets(ctx, 'g2', null)).map((o) => o.offset)).toEqual([5]);
  });

  it("a member that stops heartbeating expires; the survivor's heartbeat starts the rebalance", async () => {
    const joins = await Promise.all([0, 1].map((i) => kafkaJoin(processes[i], 'g3')));
    await syncAll('g3', joins);
    const [alive, silent] = joins;
    const beat = () => classicHeartbeat(ctx, { group: 'g3', memberId: alive.memberId, generation: alive.generation, groupInstanceId: null }).then(() => 'none', (e) => e.code);
    await expect.poll(beat, { timeout: 8000, interval: 500 }).toBe('REBALANCE_IN_PROGRESS');
    const again = await kafkaJoin(processes[0], 'g3', alive.memberId);
    expect(again.generation).toBe(alive.generation + 1);
    expect(again.members.map((m) => m.memberId)).toEqual([alive.memberId]);
    await expect(classicHeartbeat(ctx, { group: 'g3', memberId: silent.memberId, generation: alive.generation, groupInstanceId: null })).rejects.toMatchObject({ code: 'UNKNOWN_MEMBER_ID' });
    expect(await describeKafkaGroup(ctx, 'nope')).toEqual({ group: 'nope', state: 'Dead', protocolType: '', protocol: '', members: [] });
  });
});
