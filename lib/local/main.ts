// `npm start`: Sluice on a laptop. With no AWS endpoint configured it starts the embedded
// emulators (dynalite + s3rver) persisting under SLUICE_DATA_DIR (default .sluice-data); with
// AWS_ENDPOINT_URL (or both AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL_DYNAMODB; one alone is
// refused, see endpoint-config.ts) it uses that endpoint,
// e.g. LocalStack, with the SDK's own credential chain (test/test when none is configured).
// Either way it creates the bucket and table if missing and serves the HTTP API on
// 127.0.0.1:${PORT:-8080}, logging one JSON line per request, and Kafka's wire protocol on
// 127.0.0.1:${KAFKA_PORT:-9092} (lib/kafka; KAFKA_PORT=0 turns the gateway off). It also runs the
// subscriptions' dispatcher (lib/subscriptions; SLUICE_DISPATCHER=off turns it off), delivering to
// HTTPS targets, and to Lambda targets only when a Lambda endpoint is configured
// (AWS_ENDPOINT_URL_LAMBDA or AWS_ENDPOINT_URL, e.g. LocalStack).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { createClients, createContext, settingsFromEnv, type ClientOptions } from '../context.js';
import { EMULATOR_CREDENTIALS, startEmulators, type Emulators } from './emulators.js';
import { ensureBucket, ensureTable } from './provision.js';
import { startServer } from './server.js';
import { startKafkaGateway, type KafkaGateway } from '../kafka/server.js';
import { storageTarget } from './endpoint-config.js';
import { startMaintenanceTimer } from '../log/maintenance.js';
import { partitionForKey } from '../partitioners/index.js';
import { startDispatcher } from '../subscriptions/dispatcher.js';

async function clientOptions(): Promise<{ options: ClientOptions; emulators?: Emulators; where: string }> {
  const env = process.env;
  // Throws, before any client exists, when only one service has an endpoint.
  const target = storageTarget(env);
  if (target.kind === 'endpoint') {
    const endpoint = target.s3 === target.dynamodb ? target.s3 : `S3 ${target.s3}, DynamoDB ${target.dynamodb}`;
    try {
      await fromNodeProviderChain()();
      return { options: {}, where: `endpoint ${endpoint}` };
    } catch {
      // LocalStack accepts any key pair; spare the user from configuring one.
      return { options: { credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }, where: `endpoint ${endpoint}` };
    }
  }
  const dataDir = env.SLUICE_DATA_DIR || '.sluice-data';
  const emulators = await startEmulators({ dataDir });
  return {
    options: { s3Endpoint: emulators.s3Endpoint, dynamodbEndpoint: emulators.dynamodbEndpoint, credentials: EMULATOR_CREDENTIALS },
    emulators,
    where: `embedded emulators, data in ${dataDir}`,
  };
}

async function main(): Promise<void> {
  const settings = settingsFromEnv();
  const { options, emulators, where } = await clientOptions();
  const context = createContext(createClients(options), settings);
  await Promise.all([ensureBucket(context.s3, context.bucket), ensureTable(context.ddb, context.table)]);

  const port = Number(process.env.PORT ?? 8080);
  const server = await startServer({ context, port, host: '127.0.0.1', log: (line) => console.log(line) });
  // The EventBridge schedule's stand-in: retention, segment merging and the orphan sweep (lib/log/maintenance.ts).
  const maintenance = startMaintenanceTimer(
    context,
    Number(process.env.SLUICE_RETENTION_INTERVAL_MS || 60_000),
    (r) => {
      if (r.errors.length + r.retention.segments + r.merge.merges + r.sweep.deletedObjects > 0) console.log(JSON.stringify({ message: 'maintenance', ...r }));
    },
    (e) => console.error(JSON.stringify({ level: 'ERROR', message: 'maintenance failed', error: String(e) })),
  );
  // The poller Lambda's stand-in: push delivery of every subscription (lib/subscriptions/dispatcher.ts).
  const dispatcher =
    process.env.SLUICE_DISPATCHER === 'off'
      ? undefined
      : startDispatcher(context, {
          pollIntervalMs: Number(process.env.SLUICE_DISPATCHER_POLL_MS || 100),
          leaseMs: Number(process.env.SLUICE_DISPATCHER_LEASE_MS || 10_000),
          maxPartitions: Number(process.env.SLUICE_DISPATCHER_MAX_PARTITIONS || 1000),
          targetTypes: process.env.AWS_ENDPOINT_URL_LAMBDA || process.env.AWS_ENDPOINT_URL ? ['https', 'lambda'] : ['https'],
        });
  const kafkaPort = kafkaPortFromEnv(process.env);
  const kafka: KafkaGateway | undefined = kafkaPort === 0 ? undefined : await startKafkaGateway(context, { host: '127.0.0.1', port: kafkaPort });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(JSON.stringify({ message: 'stopping', signal }));
    await maintenance.stop();
    await dispatcher?.stop();
    await kafka?.close();
    await server.close();
    await emulators?.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  // Printed last: whoever waits for this line may signal the process at once.
  const url = server.url;
  console.log(`Sluice listening on ${url} (${where}; bucket ${context.bucket}, table ${context.table})

  curl -s -X POST ${url}/v1/topics -H 'content-type: application/json' -d '{"name":"orders","partitions":3}'
  curl -s -X POST ${url}/v1/topics/orders/records -H 'content-type: application/json' -d '{"records":[{"key":"k1","value":"hello"}]}'
  curl -s '${url}/v1/topics/orders/partitions/${partitionForKey(Buffer.from('k1'), 3)}/records?offset=0'
`);
  if (kafka) {
    const broker = `127.0.0.1:${kafka.port}`;
    console.log(`Kafka clients: bootstrap server ${broker}

  // kafkajs
  const kafka = new Kafka({ clientId: 'demo', brokers: ['${broker}'] });
  const producer = kafka.producer(); await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ key: 'k1', value: 'hello' }] });

  # kcat (librdkafka)
  echo 'k1:hello' | kcat -P -b ${broker} -t orders -K:
  kcat -C -b ${broker} -t orders -o beginning -e
`);
  }
}

/** KAFKA_PORT: the gateway's port, 9092 when unset, 0 for no gateway. */
function kafkaPortFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.KAFKA_PORT;
  if (raw === undefined || raw === '') return 9092;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`KAFKA_PORT must be a port number (0 turns the gateway off), got '${raw}'`);
  return port;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
