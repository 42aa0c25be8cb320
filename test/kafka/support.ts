// A Kafka gateway in this test process over a fresh bucket and table, and kafkajs clients for
// it. Every test file of the gateway starts here:
//   const kafka = await startTestGateway();            // afterAll(() => kafka.close())
//   const admin = kafka.client().admin();               // a kafkajs Kafka instance per call
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import type { SluiceContext } from '../../lib/context.js';
import { startKafkaGateway, type KafkaGateway, type KafkaGatewayOptions } from '../../lib/kafka/server.js';
import { createTestContext } from '../support/storage.js';

export interface TestGateway {
  readonly ctx: SluiceContext;
  readonly gateway: KafkaGateway;
  /** `127.0.0.1:<port>` */
  readonly broker: string;
  /** A new kafkajs client of the gateway (logLevel NOTHING unless `config` says otherwise). */
  client(config?: Partial<KafkaConfig>): Kafka;
  close(): Promise<void>;
}

export async function startTestGateway(
  options: KafkaGatewayOptions & { readonly ctx?: SluiceContext } = {},
): Promise<TestGateway> {
  const ctx = options.ctx ?? (await createTestContext());
  const gateway = await startKafkaGateway(ctx, { host: '127.0.0.1', port: 0, ...options });
  const broker = `127.0.0.1:${gateway.port}`;
  return {
    ctx,
    gateway,
    broker,
    client: (config = {}) =>
      new Kafka({ clientId: 'sluice-test', brokers: [broker], logLevel: logLevel.NOTHING, retry: { retries: 2 }, ...config }),
    close: () => gateway.close(),
  };
}
