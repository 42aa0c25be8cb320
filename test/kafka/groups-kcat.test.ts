// librdkafka's balanced consumer (kcat -G) in a consumer group through the gateway: JoinGroup v5
// with MEMBER_ID_REQUIRED, SyncGroup v3, OffsetFetch v5, OffsetCommit v7, Heartbeat v3 and
// LeaveGroup v1. A first run reads every message and commits; a second run of the same group reads
// only what was produced since. Skips with a loud message where kcat is missing; .ci/run installs it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeGroup } from '../../lib/groups/describe.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTopic, type TopicMetadata } from '../../lib/metadata/topics.js';
import { startTestGateway, type TestGateway } from './support.js';

const run = promisify(execFile);
const kcat = await run('kcat', ['-V']).then(
  () => true,
  () => false,
);
if (!kcat) console.warn('\n*** kcat is not installed: the librdkafka consumer group test of the Kafka gateway is SKIPPED (apt-get install kcat) ***\n');

describe.skipIf(!kcat)('kcat -G (librdkafka consumer group) through the gateway', () => {
  let kafka: TestGateway;
  let topic: TopicMetadata;
  beforeAll(async () => {
    kafka = await startTestGateway();
    topic = await createTopic(kafka.ctx, 'lines', 3, {});
  });
  afterAll(() => kafka?.close());

  async function produce(from: number, count: number): Promise<void> {
    const values = Array.from({ length: count }, (_, i) => `v${from + i}`);
    await appendToPartitions(
      kafka.ctx,
      topic,
      [0, 1, 2].map((partition) => ({
        partition,
        records: values.filter((_, i) => i % 3 === partition).map((v) => ({ timestamp: Date.now(), key: null, value: Buffer.from(v) })),
      })),
    );
  }

  /** One kcat group consumer run to the end of every partition; the values it printed. */
  async function consume(): Promise<string[]> {
    const { stdout } = await run(
      'kcat',
      ['-b', kafka.broker, '-G', 'kcat-readers', '-X', 'auto.offset.reset=earliest', '-e', '-q', '-f', '%s\n', '-X', 'session.timeout.ms=6000', '-X', 'auto.commit.interval.ms=200', 'lines'],
      { timeout: 60_000 },
    );
    return stdout.split('\n').filter((l) => l !== '');
  }

  it('reads everything once, commits, and a second run reads only the new messages', async () => {
    await produce(0, 30);
    const first = await consume();
    expect(first.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `v${i}`).sort());
    const described = await describeGroup(kafka.ctx, 'kcat-readers');
    expect(described.offsets.map((o) => [o.partition, o.offset])).toEqual([
      [0, 10],
      [1, 10],
      [2, 10],
    ]);
    await produce(30, 9);
    const second = await consume();
    expect(second.sort()).toEqual(Array.from({ length: 9 }, (_, i) => `v${30 + i}`).sort());
    // kcat left the group on exit (LeaveGroup): Empty, its offsets at the end.
    const after = await describeGroup(kafka.ctx, 'kcat-readers');
    expect(after.state).toBe('Empty');
    expect(after.offsets.map((o) => o.offset)).toEqual([13, 13, 13]);
  });
});
