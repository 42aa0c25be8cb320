// The onFailure destination: after the retries or the record age ran out, the failed records'
// metadata (never their keys or values, as with Lambda's on-failure destinations) goes to an SQS
// queue (SendMessage), an SNS topic (Publish) or a Sluice dead-letter topic (one record, keyed
// `<topic>-<partition>` and appended to partition `<partition> mod <its partition count>`, so the
// failures of one source partition stay in order), and delivery moves on. A destination that
// refuses is retried by the dispatcher: the offset is not committed past records whose failure
// was not recorded.
import { SNSClient, PublishCommand } from '@aws-sdk/client-sns';
import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { type SluiceContext, cacheSlot } from '../context.js';
import { appendToPartitions } from '../log/append.js';
import { getTopicCached } from '../metadata/topics.js';
import type { DecodedRecord } from '../records/index.js';
import type { OnFailureDestination } from './subscription.js';

export type FailureCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/** One failure message: which records of which partition, why, after how many invocations. */
export interface FailureRecord {
  readonly version: '1.0';
  /** ISO 8601 time the records were given up. */
  readonly timestamp: string;
  readonly requestContext: {
    readonly subscription: string;
    readonly condition: FailureCondition;
    readonly approximateInvokeCount: number;
  };
  readonly responseContext: { readonly error: string };
  readonly KafkaBatchInfo: {
    readonly topic: string;
    readonly partition: number;
    readonly topicPartition: string;
    readonly batchSize: number;
    readonly firstOffset: number;
    readonly lastOffset: number;
    /** Every offset given up (a batch split by partial responses or parallelization need not be contiguous). */
    readonly offsets: readonly number[];
    readonly firstRecordTimestamp: number;
    readonly lastRecordTimestamp: number;
  };
}

export function failureRecord(
  subscription: string,
  topic: string,
  partition: number,
  records: readonly DecodedRecord[],
  condition: FailureCondition,
  approximateInvokeCount: number,
  error: string,
  now: number,
): FailureRecord {
  return {
    version: '1.0',
    timestamp: new Date(now).toISOString(),
    requestContext: { subscription, condition, approximateInvokeCount },
    responseContext: { error },
    KafkaBatchInfo: {
      topic,
      partition,
      topicPartition: `${topic}-${partition}`,
      batchSize: records.length,
      firstOffset: records[0].offset,
      lastOffset: records[records.length - 1].offset,
      offsets: records.map((r) => r.offset),
      firstRecordTimestamp: records[0].timestamp,
      lastRecordTimestamp: records[records.length - 1].timestamp,
    },
  };
}

/** Sends one failure message to a destination; throws when the destination refused it. */
export interface FailureSender {
  send(destination: OnFailureDestination, message: FailureRecord): Promise<void>;
}

export interface FailureSenderOptions {
  /** @default one client per region and process */
  readonly sqsClient?: (region: string) => SQSClient;
  readonly snsClient?: (region: string) => SNSClient;
}

const SQS_CLIENTS = cacheSlot('sqsClients', () => new Map<string, SQSClient>());
const SNS_CLIENTS = cacheSlot('snsClients', () => new Map<string, SNSClient>());

function cached<T>(map: Map<string, T>, region: string, create: () => T): T {
  let client = map.get(region);
  if (!client) map.set(region, (client = create()));
  return client;
}

/** `arn:<partition>:<service>:<region>:<account>:<name>` */
function arnParts(arn: string): { partition: string; region: string; account: string; name: string } {
  const [, partition, , region, account, name] = arn.split(':');
  return { partition, region, account, name };
}

/** The queue URL of an SQS queue ARN. */
export function queueUrlOf(queueArn: string): string {
  const { partition, region, account, name } = arnParts(queueArn);
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}

export function defaultFailureSender(ctx: SluiceContext, options: FailureSenderOptions = {}): FailureSender {
  const sqs = options.sqsClient ?? ((region: string) => cached(ctx.caches.get(SQS_CLIENTS), region, () => new SQSClient({ region })));
  const sns = options.snsClient ?? ((region: string) => cached(ctx.caches.get(SNS_CLIENTS), region, () => new SNSClient({ region })));
  return {
    async send(destination, message) {
      const body = JSON.stringify(message);
      switch (destination.type) {
        case 'sqs':
          await sqs(arnParts(destination.queueArn).region).send(new SendMessageCommand({ QueueUrl: queueUrlOf(destination.queueArn), MessageBody: body }));
          return;
        case 'sns':
          await sns(arnParts(destination.topicArn).region).send(new PublishCommand({ TopicArn: destination.topicArn, Message: body }));
          return;
        case 'topic': {
          const topic = await getTopicCached(ctx, destination.topic);
          const source = message.KafkaBatchInfo;
          const [result] = await appendToPartitions(ctx, topic, [
            {
              partition: source.partition % topic.partitions,
              records: [{ timestamp: ctx.now(), key: Buffer.from(source.topicPartition), value: Buffer.from(body), headers: [{ key: 'sluice-subscription', value: Buffer.from(message.requestContext.subscription) }] }],
            },
          ]);
          if ('error' in result) throw result.error;
          return;
        }
      }
    },
  };
}
