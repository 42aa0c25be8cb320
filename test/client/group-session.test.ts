// lib/client/group-session.ts with a fake host and a scripted coordinator: the order of a rebalance
// (stop revoked fetchers, commit their positions, onPartitionsRevoked, THEN the heartbeat that
// releases them, then start the new ones), a failed final commit withholding that acknowledgement,
// and stop (commit, leave).
import { describe, expect, it } from 'vitest';
import { SluiceClientError } from '../../lib/client/errors.js';
import { GroupSession, type GroupSessionHost } from '../../lib/client/group-session.js';
import type { TopicPartition } from '../../lib/client/topic-partitions.js';
import type { Assignor, JoinReply, SluiceApi } from '../../lib/client/wire.js';

const tps = (list: readonly TopicPartition[]) => list.map((t) => `${t.topic}-${t.partition}`).join(',');

function setup(joins: Partial<JoinReply>[], assignor: Assignor = 'range') {
  const events: string[] = [];
  let joinIndex = 0;
  let commitFailures: SluiceClientError[] = [];
  const api = {
    joinGroup: async () => {
      const r = { memberId: 'm1', generation: 1, assignor, assignment: [], ...joins[Math.min(joinIndex++, joins.length - 1)] };
      events.push(`join:${r.generation}`);
      return r;
    },
    heartbeat: async (_g: string, _m: string, generation: number) => {
      events.push(`heartbeat:${generation}`);
      return { generation, rebalance: false };
    },
    leaveGroup: async () => void events.push('leave'),
  } as unknown as SluiceApi;
  const host: GroupSessionHost = {
    api,
    assignor,
    heartbeatIntervalMs: 60_000,
    retry: { retries: 0 },
    startPartitions: async (t) => void events.push(`start:${tps(t)}`),
    stopPartitions: async (t) => void (t.length > 0 && events.push(`stop:${tps(t)}`)),
    commitPositions: async (t) => {
      const failure = commitFailures.shift();
      if (failure) {
        events.push(`commit-failed:${tps(t)}`);
        throw failure;
      }
      events.push(`commit:${tps(t)}`);
    },
    forgetPositions: (t) => void events.push(`forget:${tps(t)}`),
    reportError: (e) => void events.push(`error:${e.code}`),
    onPartitionsAssigned: (a) => void events.push(`assigned:${JSON.stringify(a)}`),
    onPartitionsRevoked: (r) => void events.push(`revoked:${JSON.stringify(r)}`),
  };
  return { session: new GroupSession(host, 'g', ['t']), events, failCommitsWith: (e: SluiceClientError[]) => (commitFailures = e) };
}

describe('GroupSession', () => {
  it('start: join, acknowledge by heartbeat, then start the assigned partitions', async () => {
    const { session, events } = setup([{ generation: 1, assignment: [{ topic: 't', partitions: [0, 1] }] }]);
    await session.start();
    expect(events).toEqual(['join:1', 'heartbeat:1', 'start:t-0,t-1', 'assigned:[{"topic":"t","partitions":[0,1]}]']);
    expect(session.member()).toEqual({ memberId: 'm1', generation: 1 });
    await session.stop();
  });

  it('eager rebalance: revoked fetchers stopped and committed, onPartitionsRevoked, and only then the heartbeat', async () => {
    const { session, events } = setup([
      { generation: 1, assignment: [{ topic: 't', partitions: [0, 1] }] },
      { generation: 2, assignment: [{ topic: 't', partitions: [1] }] },
    ]);
    await session.start();
    events.length = 0;
    session.requestRejoin(false);
    await new Promise((r) => setTimeout(r, 20));
    const beat = events.indexOf('heartbeat:2');
    expect(events.slice(0, beat + 1)).toEqual(['join:2', 'stop:t-0,t-1', 'commit:t-0,t-1', 'forget:t-0,t-1', 'revoked:[{"topic":"t","partitions":[0,1]}]', 'heartbeat:2']);
    expect(events.slice(beat + 1, beat + 2)).toEqual(['start:t-1']);
    await session.stop();
  });

  it('cooperative (sticky): only the moved partition is revoked; the kept one keeps running', async () => {
    const { session, events } = setup(
      [
        { generation: 1, assignment: [{ topic: 't', partitions: [0, 1] }] },
        { generation: 2, assignment: [{ topic: 't', partitions: [1] }] },
      ],
      'sticky',
    );
    await session.start();
    events.length = 0;
    session.requestRejoin(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(['join:2', 'stop:t-0', 'commit:t-0', 'forget:t-0', 'revoked:[{"topic":"t","partitions":[0]}]', 'heartbeat:2']);
    await session.stop();
  });

  it('a failed final commit withholds the acknowledgement: no heartbeat with the new generation, the error reported', async () => {
    const { session, events, failCommitsWith } = setup([
      { generation: 1, assignment: [{ topic: 't', partitions: [0] }] },
      { generation: 2, assignment: [] },
    ]);
    await session.start();
    events.length = 0;
    failCommitsWith([new SluiceClientError('REQUEST_TIMED_OUT', 'lost', { retriable: true })]);
    session.requestRejoin(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toContain('commit-failed:t-0');
    expect(events).toContain('error:REQUEST_TIMED_OUT');
    expect(events).not.toContain('heartbeat:2');
    expect(events.some((e) => e.startsWith('revoked:'))).toBe(false);
    await session.heartbeatNow();
    expect(events.filter((e) => e.startsWith('heartbeat:'))).toEqual(['heartbeat:1']); // only the generation it may acknowledge
    await session.stop();
  });

  it('stop: stops fetchers, commits what it holds, leaves, drops everything', async () => {
    const { session, events } = setup([{ generation: 1, assignment: [{ topic: 't', partitions: [3] }] }]);
    await session.start();
    events.length = 0;
    await session.stop();
    expect(events).toEqual(['stop:t-3', 'commit:t-3', 'leave', 'stop:t-3', 'forget:t-3', 'revoked:[{"topic":"t","partitions":[3]}]']);
    expect(session.member()).toEqual({});
  });
});
