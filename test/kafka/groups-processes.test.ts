// The JoinGroup rendezvous across gateway PROCESSES: two `npm start` servers (each its own OS
// process with its own Kafka gateway, test/support/server-processes.ts) on one storage endpoint.
// Members of one group join through different gateways at once, over Kafka's wire protocol (v5,
// with the MEMBER_ID_REQUIRED round trip), and must all get the same generation, the same
// leader and protocol, the leader all members' metadata, and every member its share of one
// assignment. Then one member leaves through the other gateway, and the survivors rejoin into
// the next generation across both processes. Last, a gateway is killed (-9) while its member waits
// in JoinGroup: the group is not wedged, the orphaned member expires and the survivor ends Stable.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { decodeAssignment, decodeSubscriptionTopics, encodeAssignment, encodeSubscription } from '../../lib/groups/consumer-protocol.js';
import { describeGroup } from '../../lib/groups/describe.js';
import { KafkaError } from '../../lib/kafka/protocol/error-codes.js';
import { ApiKey, type HeartbeatResponse, type JoinGroupResponse, type LeaveGroupResponse, type SyncGroupResponse } from '../../lib/kafka/protocol/messages.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { ServerProcesses } from '../support/server-processes.js';
import { createTestContext } from '../support/storage.js';
import { rawCall } from './raw-call.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let ctx: SluiceContext;
let storage: { s3Endpoint: string; dynamodbEndpoint: string; bucket: string; table: string };
const gateways: { processes: ServerProcesses; port: number }[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  await createTopic(ctx, 'events', 6);
  storage = { s3Endpoint: inject('s3Endpoint'), dynamodbEndpoint: inject('dynamodbEndpoint'), bucket: ctx.bucket, table: ctx.table };
  await Promise.all(
    [0, 1].map(async () => {
      const port = await freePort();
      const processes = new ServerProcesses(storage, { KAFKA_PORT: String(port), SLUICE_RETENTION_INTERVAL_MS: '600000' });
      await processes.start(1);
      gateways.push({ processes, port });
    }),
  );
});
afterAll(async () => {
  await Promise.all(gateways.map(({ processes }) => processes.close()));
});

const GROUP = 'across-processes';

async function join(port: number, memberId = '', group = GROUP): Promise<JoinGroupResponse> {
  const response = await rawCall<JoinGroupResponse>(port, ApiKey.JoinGroup, 5, {
    groupId: group,
    sessionTimeoutMs: 6000,
    rebalanceTimeoutMs: 8000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [
      { name: 'range', metadata: encodeSubscription(['events']) },
      { name: 'roundrobin', metadata: encodeSubscription(['events']) },
    ],
  });
  if (response.errorCode === KafkaError.MEMBER_ID_REQUIRED) return join(port, response.memberId, group);
  return response;
}

/** The leader's plan: partition p to the (p mod n)-th member, as a round robin would. */
function plan(leader: JoinGroupResponse) {
  const ids = leader.members!.map((m) => m.memberId!);
  return ids.map((memberId, i) => ({ memberId, assignment: encodeAssignment({ events: [0, 1, 2, 3, 4, 5].filter((p) => p % ids.length === i) }) }));
}

async function syncAll(members: { port: number; joined: JoinGroupResponse }[]): Promise<Map<string, number[]>> {
  const out = await Promise.all(
    members.map(async ({ port, joined }) => {
      const leader = joined.leader === joined.memberId;
      const r = await rawCall<SyncGroupResponse>(port, ApiKey.SyncGroup, 3, {
        groupId: GROUP,
        generationId: joined.generationId,
        memberId: joined.memberId,
        groupInstanceId: null,
        assignments: leader ? plan(joined) : [],
      });
      expect(r.errorCode).toBe(KafkaError.NONE);
      return [joined.memberId!, decodeAssignment(r.assignment!)?.events ?? []] as const;
    }),
  );
  return new Map(out);
}

describe('JoinGroup across two gateway processes', () => {
  it('members joined through different processes share one generation and one assignment', async () => {
    const ports = [gateways[0].port, gateways[0].port, gateways[1].port, gateways[1].port];
    const joined = await Promise.all(ports.map((port) => join(port)));
    for (const j of joined) expect(j.errorCode).toBe(KafkaError.NONE);
    expect(new Set(joined.map((j) => j.generationId)).size).toBe(1);
    expect(new Set(joined.map((j) => j.leader)).size).toBe(1);
    expect(new Set(joined.map((j) => j.protocolName))).toEqual(new Set(['range']));
    const leader = joined.find((j) => j.leader === j.memberId)!;
    expect(leader.members!.map((m) => m.memberId).sort()).toEqual(joined.map((j) => j.memberId).sort());
    for (const m of leader.members!) expect(decodeSubscriptionTopics(m.metadata!)).toEqual(['events']);
    expect(joined.filter((j) => j !== leader).every((j) => j.members!.length === 0)).toBe(true);

    const members = joined.map((j, i) => ({ port: ports[i], joined: j }));
    const assigned = await syncAll(members);
    expect([...assigned.values()].flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const described = await describeGroup(ctx, GROUP);
    expect(described.state).toBe('Stable');
    expect(Object.fromEntries(described.members.map((m) => [m.memberId, m.assignment[0]?.partitions ?? []]))).toEqual(Object.fromEntries(assigned));

    // The member that joined through process 1 leaves through process 2; the others learn it by
    // heartbeat (through their own processes) and rejoin.
    const leaving = members[0];
    const left = await rawCall<LeaveGroupResponse>(gateways[1].port, ApiKey.LeaveGroup, 3, {
      groupId: GROUP,
      members: [{ memberId: leaving.joined.memberId, groupInstanceId: null }],
    });
    expect(left.members).toEqual([{ memberId: leaving.joined.memberId, groupInstanceId: null, errorCode: KafkaError.NONE }]);
    const rest = members.slice(1);
    for (const m of rest) {
      const beat = await rawCall<HeartbeatResponse>(m.port, ApiKey.Heartbeat, 3, { groupId: GROUP, generationId: m.joined.generationId, memberId: m.joined.memberId, groupInstanceId: null });
      expect(beat.errorCode).toBe(KafkaError.REBALANCE_IN_PROGRESS);
    }
    const rejoined = await Promise.all(rest.map((m) => join(m.port, m.joined.memberId)));
    expect(new Set(rejoined.map((j) => j.generationId))).toEqual(new Set([leaving.joined.generationId! + 1]));
    const again = await syncAll(rest.map((m, i) => ({ port: m.port, joined: rejoined[i] })));
    expect([...again.values()].flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect([...again.keys()].sort()).toEqual(rest.map((m) => m.joined.memberId).sort());
  });
});

describe('a gateway process killed during the rendezvous', () => {
  it("does not wedge the group: the dead gateway's member expires and the survivor ends Stable alone", async () => {
    const group = 'survives-a-crash';
    const doomedPort = await freePort();
    const doomed = new ServerProcesses(storage, { KAFKA_PORT: String(doomedPort), SLUICE_RETENTION_INTERVAL_MS: '600000' });
    await doomed.start(1);
    // A joins through the doomed gateway and waits in JoinGroup (the initial rebalance delay)...
    const orphan = join(doomedPort, '', group).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1000));
    // ...which dies with the request in flight (kill -9: no LeaveGroup, no answer).
    await doomed.kill(doomed.all[0]);
    expect(await orphan).toBeUndefined();
    // B joins through a live gateway and behaves like a client until the group is Stable with it alone.
    const port = gateways[0].port;
    let joined = await join(port, '', group);
    const started = Date.now();
    for (;;) {
      expect(Date.now() - started, 'the group settled').toBeLessThan(40_000);
      const synced = await rawCall<SyncGroupResponse>(port, ApiKey.SyncGroup, 3, {
        groupId: group,
        generationId: joined.generationId,
        memberId: joined.memberId,
        groupInstanceId: null,
        assignments: joined.leader === joined.memberId ? plan(joined) : [],
      });
      if (synced.errorCode === KafkaError.NONE && joined.members!.length === 1) {
        expect(decodeAssignment(synced.assignment!)).toEqual({ events: [0, 1, 2, 3, 4, 5] });
        break;
      }
      // Not alone yet (the orphan is a member until its session expires): heartbeat until told to rejoin.
      if (synced.errorCode === KafkaError.NONE) {
        for (;;) {
          const beat = await rawCall<HeartbeatResponse>(port, ApiKey.Heartbeat, 3, { groupId: group, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null });
          if (beat.errorCode !== KafkaError.NONE) break;
          await new Promise((r) => setTimeout(r, 500));
        }
      } else {
        expect(synced.errorCode).toBe(KafkaError.REBALANCE_IN_PROGRESS);
      }
      joined = await join(port, joined.memberId, group);
    }
    const described = await describeGroup(ctx, group);
    expect(described.state).toBe('Stable');
    expect(described.members.map((m) => m.memberId)).toEqual([joined.memberId]);
  });
});
