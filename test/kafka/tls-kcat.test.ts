// librdkafka (kcat) over the gateway's own TLS (security.protocol=ssl): trusting the test
// certificate it produces and consumes back; trusting only the system's CAs it is refused and
// writes nothing. Skips with a loud message where kcat is missing; .ci/run installs it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TopicMetadata, createTopic } from '../../lib/metadata/topics.js';
import { readAll } from '../log/read-all.js';
import { kcatInstalled, kcatWith } from './kcat-runner.js';
import { startTestGateway, type TestGateway } from './support.js';

const kcat = kcatInstalled;
if (!kcat) console.warn('\n*** kcat is not installed: the kcat TLS tests of the Kafka gateway are SKIPPED (apt-get install kcat) ***\n');

const CRT_PATH = fileURLToPath(new URL('../fixtures/tls/localhost.crt', import.meta.url));
const KEY_PATH = fileURLToPath(new URL('../fixtures/tls/localhost.key', import.meta.url));

describe.skipIf(!kcat)('kcat (librdkafka) over TLS', () => {
  let kafka: TestGateway;
  let topic: TopicMetadata;
  let broker: string;
  beforeAll(async () => {
    kafka = await startTestGateway({ advertisedHost: 'localhost', tls: { cert: readFileSync(CRT_PATH), key: readFileSync(KEY_PATH) } });
    topic = await createTopic(kafka.ctx, 'secure', 1);
    broker = `localhost:${kafka.gateway.port}`;
  });
  afterAll(() => kafka?.close());

  it('produces (kcat -P) and consumes back (kcat -C) with security.protocol=ssl', async () => {
    const ssl = ['-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${CRT_PATH}`];
    await kcatWith(['-b', broker, ...ssl, '-t', 'secure', '-p', '0', '-P', '-K', ':'], 'k1:over tls\nk2:still tls\n');
    const out = await kcatWith(['-b', broker, ...ssl, '-t', 'secure', '-p', '0', '-C', '-o', 'beginning', '-e', '-q', '-f', '%o %k=%s\\n']);
    expect(out.trim().split('\n')).toEqual(['0 k1=over tls', '1 k2=still tls']);
    expect((await readAll(kafka.ctx, topic, 0)).records.map((r) => r.value!.toString())).toEqual(['over tls', 'still tls']);
    expect(kafka.gateway.stats().tlsHandshakeErrors).toBe(0);
  });

  it('is refused when it trusts only the system CAs, and writes nothing', async () => {
    const untrusting = ['-X', 'security.protocol=ssl', '-X', 'ssl.ca.location=probe', '-m', '3'];
    await expect(kcatWith(['-b', broker, ...untrusting, '-L'])).rejects.toThrow(/certificate verify failed|SSL handshake failed/);
    expect(kafka.gateway.stats().tlsHandshakeErrors).toBeGreaterThan(0);
    expect((await readAll(kafka.ctx, topic, 0)).records).toHaveLength(2);
  });
});
