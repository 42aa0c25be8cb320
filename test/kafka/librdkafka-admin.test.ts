// A non-JavaScript admin client through the gateway: librdkafka 2.0's (python3-confluent-kafka,
// Debian's package; .ci/run installs it) creates topics (CreateTopics v4), describes and replaces
// their configs (DescribeConfigs v1, AlterConfigs v0), grows and deletes them (CreatePartitions v0,
// DeleteTopics v1): the versions kafkajs does not send. test/kafka/confluent-admin.py reports what
// the client saw; the stored topics are checked too. Skips, loudly, where the package is missing.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTopic, listTopics } from '../../lib/metadata/topics.js';
import { startTestGateway, type TestGateway } from './support.js';

const PYTHON = '/usr/bin/python3';
const available = spawnSync(PYTHON, ['-c', 'import confluent_kafka'], { stdio: 'ignore' }).status === 0;
if (!available) {
  console.warn('\n*** SKIPPED test/kafka/librdkafka-admin.test.ts: python3-confluent-kafka is not installed (apt-get install python3-confluent-kafka; .ci/run does) ***\n');
}

let kafka: TestGateway;
beforeAll(async () => {
  if (available) kafka = await startTestGateway();
});
afterAll(async () => kafka?.close());

describe.skipIf(!available)("librdkafka's admin client (python3-confluent-kafka)", () => {
  it('creates, describes, alters, grows and deletes topics with Kafka semantics and error names', async () => {
    const script = fileURLToPath(new URL('./confluent-admin.py', import.meta.url));
    // Asynchronous: the gateway runs in this process and must answer while the client waits.
    const { spawn } = await import('node:child_process');
    const child = spawn(PYTHON, [script, kafka.broker]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    const seen = JSON.parse(stdout);

    expect(seen.create).toEqual({
      'rd-orders': { ok: true },
      'rd-replicated': { ok: false, error: 'INVALID_REPLICATION_FACTOR' },
      'rd-bad-config': { ok: false, error: 'INVALID_CONFIG' },
    });
    expect(seen.create_again).toEqual({ 'rd-orders': { ok: false, error: 'TOPIC_ALREADY_EXISTS' } });
    expect(seen.validate_only).toEqual({ 'rd-dry': { ok: true } });
    expect(seen.listed).toEqual(['rd-orders']);
    expect(seen.partitions).toBe(3);

    expect(seen.described['retention.ms']).toEqual({ value: '3600000', is_default: false, read_only: false, source: 1 }); // DYNAMIC_TOPIC_CONFIG
    expect(seen.described['segment.bytes']).toMatchObject({ value: '1073741824', is_default: true, source: 5 }); // DEFAULT_CONFIG
    // librdkafka's name for UNKNOWN_TOPIC_OR_PARTITION (3).
    expect(seen.described_missing).toEqual({ ok: false, error: 'UNKNOWN_TOPIC_OR_PART' });

    // AlterConfigs replaced the set: retention.ms went back to its default.
    expect(seen.altered).toEqual({ ok: true });
    expect(seen.after_alter).toEqual({ 'retention.ms': '604800000', 'segment.bytes': '4096' });
    expect(seen.altered_bad).toEqual({ ok: false, error: 'INVALID_CONFIG' });
    expect(seen.after_bad).toBe('4096');

    expect(seen.grown).toEqual({ ok: true });
    expect(seen.shrunk).toEqual({ ok: false, error: 'INVALID_PARTITIONS' });
    expect(seen.deleted).toEqual({ 'rd-orders': { ok: true }, 'rd-missing': { ok: false, error: 'UNKNOWN_TOPIC_OR_PART' } });

    // What Sluice stores agrees.
    expect(await getTopic(kafka.ctx, 'rd-orders')).toBeUndefined();
    expect(await listTopics(kafka.ctx)).toEqual([]);
  }, 120_000);
});
