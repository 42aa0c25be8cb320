// librdkafka (kcat, a non-JavaScript client) against the gateway: it sends ApiVersions v3
// (flexible) first, then Metadata, and lists the gateway as the only broker and leader. Skips
// with a loud message where kcat is missing; .ci/run installs it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic } from '../../lib/metadata/topics.js';
import { startTestGateway, type TestGateway } from './support.js';

const run = promisify(execFile);
const kcat = await run('kcat', ['-V']).then(
  () => true,
  () => false,
);
if (!kcat) console.warn('\n*** kcat is not installed: the librdkafka tests of the Kafka gateway are SKIPPED (apt-get install kcat) ***\n');

describe.skipIf(!kcat)('kcat (librdkafka 2.x) against the gateway', () => {
  let kafka: TestGateway;
  beforeAll(async () => {
    kafka = await startTestGateway();
    await createTopic(kafka.ctx, 'orders', 3, {});
  });
  afterAll(() => kafka?.close());

  it('lists brokers and topics (kcat -L), negotiating versions with ApiVersions v3', async () => {
    const { stdout } = await run('kcat', ['-L', '-J', '-b', kafka.broker, '-m', '10']);
    const metadata = JSON.parse(stdout) as {
      controllerid: number;
      brokers: { id: number; name: string }[];
      topics: { topic: string; partitions: { partition: number; leader: number; replicas: { id: number }[]; isrs: { id: number }[] }[] }[];
    };
    expect(metadata.controllerid).toBe(0);
    expect(metadata.brokers).toEqual([{ id: 0, name: kafka.broker }]);
    expect(metadata.topics.map((t) => t.topic)).toEqual(['orders']);
    expect(metadata.topics[0]!.partitions).toEqual(
      [0, 1, 2].map((partition) => ({ partition, leader: 0, replicas: [{ id: 0 }], isrs: [{ id: 0 }] })),
    );
    const stats = kafka.gateway.stats();
    expect(stats.apis.ApiVersions!.errors).toBe(0); // v3 answered as is: no fallback needed
    expect(stats.apis.Metadata!.errors).toBe(0);
  });
});
