// The entry object (kafkajs' `new Kafka({brokers})` → `.producer()`, `.consumer()`, `.admin()`).
// It owns the transport and the topic metadata cache that its producers share:
//   new Sluice({ endpoint: 'http://127.0.0.1:8080' })                         — local, unsigned
//   new Sluice({ endpoint: 'https://abc.execute-api.eu-west-1.amazonaws.com' }) — SigV4 signed
//   new Sluice({ lambda: { functionName: (op) => ... } })                     — direct invoke
//   new Sluice({ transport })                                                  — anything else
import { Admin } from './admin.js';
import { Consumer, type ConsumerOptions } from './consumer.js';
import { Producer, type ProducerOptions } from './producer.js';
import { TopicMetadataCache } from './topic-metadata.js';
import { HttpTransport, type HttpTransportOptions } from './transport-http.js';
import { LambdaTransport, type LambdaTransportOptions } from './transport-lambda.js';
import type { Transport } from './transport.js';
import { SluiceApi } from './wire.js';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:8080';

export interface SluiceOptions extends Partial<HttpTransportOptions> {
  /** Invoke the Lambda functions directly instead of going over HTTP. */
  readonly lambda?: LambdaTransportOptions;
  /** A ready transport (wins over endpoint and lambda), e.g. a wrapper that counts requests. */
  readonly transport?: Transport;
  /** How long producers trust a cached partition count. @default 300000 */
  readonly metadataMaxAgeMs?: number;
}

export class Sluice {
  readonly api: SluiceApi;
  private readonly metadata: TopicMetadataCache;

  constructor(options: SluiceOptions = {}) {
    const transport =
      options.transport ??
      (options.lambda ? new LambdaTransport(options.lambda) : new HttpTransport({ ...options, endpoint: options.endpoint ?? process.env.SLUICE_ENDPOINT ?? DEFAULT_ENDPOINT }));
    this.api = new SluiceApi(transport);
    this.metadata = new TopicMetadataCache(this.api, options.metadataMaxAgeMs);
  }

  producer(options: ProducerOptions = {}): Producer {
    return new Producer(this.api, this.metadata, options);
  }

  consumer(options: ConsumerOptions = {}): Consumer {
    return new Consumer(this.api, options);
  }

  admin(): Admin {
    return new Admin(this.api);
  }
}
