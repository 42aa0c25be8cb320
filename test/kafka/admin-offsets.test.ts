// Offsets through the gateway's ListOffsets: kafkajs's fetchTopicOffsets (earliest and latest) and
// fetchTopicOffsetsByTimestamp over records written with known timestamps (some in spilled manifest
// items, some in the tail), the raw answers of v0, v1 and v4 (Kafka's -1/-1 for a time no record
// reaches, leader epochs), and the log start moving after retention.ms is lowered over Kafka and
// maintenance runs.
import type { Admin } from 'kafkajs';
import { ConfigResourceTypes } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey, type ListOffsetsRequest, type ListOffsetsResponse } from '../../lib/kafka/protocol/messages.js';
import { createTopic, type TopicMetadata } from '../../lib/metadata/topics.js';
import { appendSpilled, appendValues, runOnce } from '../log/maintenance-support.js';
import { rawCall } from './raw-call.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let admin: Admin;
let topic: TopicMetadata;

const HOUR = 3_600_000;
const T0 = Date.now() - 10 * HOUR;

beforeAll(async () => {
  kafka = await startTestGateway();
  admin = kafka.client().admin();
  await admin.connect();
  // Partition 0: offsets 0-1 at T0, 2-3 at T0 + 1 h (both spilled into manifest items), 4 at T0 + 2 h (in the tail).
  // Partition 1: nothing.
  topic = await createTopic(kafka.ctx, 'clicks', 2);
  await appendSpilled(kafka.ctx, topic, ['a', 'b'], T0);
  await appendSpilled(kafka.ctx, topic, ['c', 'd'], T0 + HOUR);
  await appendValues(kafka.ctx, topic, ['e'], T0 + 2 * HOUR);
});
afterAll(async () => {
  await admin.disconnect();
  await kafka.close();
});

async function listOffsets(version: number, partitions: ListOffsetsRequest.ListOffsetsPartition[], name = 'clicks'): Promise<ListOffsetsResponse.ListOffsetsPartitionResponse[]> {
  const request = { replicaId: -1, isolationLevel: 0, topics: [{ name, partitions }], timeoutMs: 0 };
  const response = await rawCall<ListOffsetsResponse>(kafka.gateway.port, ApiKey.ListOffsets, version, request);
  return response.topics![0].partitions!;
}

const at = (partitionIndex: number, timestamp: number | bigint, currentLeaderEpoch = -1) => ({ partitionIndex, timestamp: BigInt(timestamp), currentLeaderEpoch, maxNumOffsets: 1 });

describe('ListOffsets through the gateway', () => {
  it('kafkajs fetchTopicOffsets: log start and high watermark of every partition', async () => {
    const offsets = await admin.fetchTopicOffsets('clicks');
    expect(offsets.sort((a, b) => a.partition - b.partition)).toEqual([
      { partition: 0, offset: '5', high: '5', low: '0' },
      { partition: 1, offset: '0', high: '0', low: '0' },
    ]);
  });

  it('kafkajs fetchTopicOffsetsByTimestamp: the first offset at or after the time; past the newest record, the high watermark', async () => {
    const byTime = async (ts: number) => (await admin.fetchTopicOffsetsByTimestamp('clicks', ts)).sort((a, b) => a.partition - b.partition);
    expect(await byTime(T0 - HOUR)).toEqual([{ partition: 0, offset: '0' }, { partition: 1, offset: '0' }]);
    expect(await byTime(T0 + 1)).toEqual([{ partition: 0, offset: '2' }, { partition: 1, offset: '0' }]);
    expect(await byTime(T0 + HOUR)).toEqual([{ partition: 0, offset: '2' }, { partition: 1, offset: '0' }]);
    expect(await byTime(T0 + 2 * HOUR)).toEqual([{ partition: 0, offset: '4' }, { partition: 1, offset: '0' }]);
    expect(await byTime(T0 + 3 * HOUR)).toEqual([{ partition: 0, offset: '5' }, { partition: 1, offset: '0' }]);
  });

  it("raw v1: the record's timestamp with its offset; -1/-1 when no record is that late; errors per partition", async () => {
    expect(await listOffsets(1, [at(0, T0 + 1), at(1, T0)])).toEqual([
      expect.objectContaining({ partitionIndex: 0, errorCode: 0, offset: 2n, timestamp: BigInt(T0 + HOUR) }),
      expect.objectContaining({ partitionIndex: 1, errorCode: 0, offset: -1n, timestamp: -1n }),
    ]);
    expect(await listOffsets(1, [at(0, T0 + 3 * HOUR)])).toEqual([expect.objectContaining({ partitionIndex: 0, errorCode: 0, offset: -1n, timestamp: -1n })]);
    expect(await listOffsets(1, [at(0, 2n ** 62n)])).toEqual([expect.objectContaining({ errorCode: 0, offset: -1n, timestamp: -1n })]);
    expect(await listOffsets(1, [at(7, -1)])).toEqual([expect.objectContaining({ partitionIndex: 7, errorCode: 3 })]); // UNKNOWN_TOPIC_OR_PARTITION
    expect(await listOffsets(1, [at(0, -1)], 'missing')).toEqual([expect.objectContaining({ errorCode: 3 })]);
    expect(await listOffsets(1, [at(0, -7)])).toEqual([expect.objectContaining({ errorCode: 42 })]); // INVALID_REQUEST
    expect((await listOffsets(1, [at(0, -1), at(0, -2)])).map((p) => p.errorCode)).toEqual([42, 42]); // a partition twice
  });

  it('raw v0: oldStyleOffsets; v4: leader epoch 0, a stale or future currentLeaderEpoch refused', async () => {
    expect(await listOffsets(0, [at(0, -1), at(1, -2)])).toEqual([
      expect.objectContaining({ partitionIndex: 0, errorCode: 0, oldStyleOffsets: [5n] }),
      expect.objectContaining({ partitionIndex: 1, errorCode: 0, oldStyleOffsets: [0n] }),
    ]);
    expect(await listOffsets(0, [at(0, T0 + 3 * HOUR)])).toEqual([expect.objectContaining({ errorCode: 0, oldStyleOffsets: [] })]);
    expect(await listOffsets(4, [at(0, -2, 0)])).toEqual([expect.objectContaining({ partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: 0n, leaderEpoch: 0 })]);
    expect((await listOffsets(4, [at(0, -1, 1)]))[0].errorCode).toBe(75); // UNKNOWN_LEADER_EPOCH
    expect((await listOffsets(5, [at(0, -1, -1)]))[0]).toMatchObject({ errorCode: 0, offset: 5n });
  });

  it('retention.ms lowered over Kafka: the next maintenance run moves the log start that ListOffsets reports', async () => {
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'clicks', configEntries: [{ name: 'retention.ms', value: String(9.5 * HOUR) }] }] });
    const report = await runOnce(kafka.ctx);
    expect(report.errors).toEqual([]);
    // The item at T0 is past 9.5 hours; the one at T0 + 1 h is not.
    const offsets = await admin.fetchTopicOffsets('clicks');
    expect(offsets.find((o) => o.partition === 0)).toEqual({ partition: 0, offset: '5', high: '5', low: '2' });
    expect(await admin.fetchTopicOffsetsByTimestamp('clicks', T0 - HOUR)).toContainEqual({ partition: 0, offset: '2' });
  });
});
