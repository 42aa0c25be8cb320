// librdkafka (kcat, a non-JavaScript Kafka client) produces and consumes through the gateway:
// keyed messages with headers, plain and idempotent (InitProducerId, sequences), read back by kcat
// as a consumer (ListOffsets, then Fetch with RecordBatches) and over Sluice's own log. Skips with a
// loud message where kcat is missing; .ci/run installs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TopicMetadata, createTopic } from '../../lib/metadata/topics.js';
import { readAll } from '../log/read-all.js';
import { kcatInstalled, kcatWith } from './kcat-runner.js';
import { startTestGateway, type TestGateway } from './support.js';

const kcat = kcatInstalled;
if (!kcat) console.warn('\n*** kcat is not installed: the kcat produce/consume tests of the Kafka gateway are SKIPPED (apt-get install kcat) ***\n');

describe.skipIf(!kcat)('kcat (librdkafka 2.x) produces and consumes through the gateway', () => {
  let kafka: TestGateway;
  let topic: TopicMetadata;
  beforeAll(async () => {
    kafka = await startTestGateway();
    topic = await createTopic(kafka.ctx, 'kc', 2);
  });
  afterAll(() => kafka?.close());

  it('produces keyed messages with headers (kcat -P), plain and idempotent, and consumes them back (kcat -C)', async () => {
    const common = ['-b', kafka.broker, '-t', 'kc', '-p', '0'];
    await kcatWith([...common, '-P', '-K', ':', '-H', 'origin=kcat'], 'k1:first\nk2:second\n');
    await kcatWith([...common, '-P', '-K', ':', '-X', 'enable.idempotence=true'], 'k3:idempotent\n');
    const out = await kcatWith([...common, '-C', '-o', 'beginning', '-e', '-q', '-f', '%o %k=%s [%h]\\n']);
    expect(out.trim().split('\n')).toEqual(['0 k1=first [origin=kcat]', '1 k2=second [origin=kcat]', '2 k3=idempotent []']);

    const { records } = await readAll(kafka.ctx, topic, 0);
    expect(records.map((r) => `${r.key!.toString()}=${r.value!.toString()}`)).toEqual(['k1=first', 'k2=second', 'k3=idempotent']);
    expect(records[0].headers).toEqual([{ key: 'origin', value: Buffer.from('kcat') }]);
    expect(kafka.gateway.stats().apis.InitProducerId?.requests).toBeGreaterThanOrEqual(1);
    for (const api of ['Produce', 'Fetch', 'ListOffsets']) expect(kafka.gateway.stats().apis[api]?.errors, api).toBe(0);
  });

  it('consumes from an offset and stops at the end of an empty partition', async () => {
    const out = await kcatWith(['-b', kafka.broker, '-t', 'kc', '-p', '0', '-C', '-o', '2', '-e', '-q', '-f', '%o %s\\n']);
    expect(out.trim()).toBe('2 idempotent');
    expect(await kcatWith(['-b', kafka.broker, '-t', 'kc', '-p', '1', '-C', '-o', 'beginning', '-e', '-q', '-f', '%s\\n'])).toBe('');
  });
});
