// Push delivery in CDK: `sluiceLog.addSubscription(id, { topic, target, ... })` deploys one Sluice
// subscription (lib/subscriptions) as the custom resource `Custom::SluiceSubscription`, served by
// the log's own admin function (lib/api/subscription-resource.ts): `cdk deploy` creates it through
// the same createSubscription operation the HTTP API and the CLI use, `cdk destroy` deletes it.
//
// The options carry the names of CDK's Lambda event source mappings (`batchSize`,
// `maxBatchingWindow`, `startingPosition`, `bisectBatchOnError`, `reportBatchItemFailures`,
// `retryAttempts`, `maxRecordAge`, `onFailure`, `parallelizationFactor`, `enabled`), so moving a
// Kinesis trigger to Sluice changes the call, not the options.
//
// Delivery is the subscriptions poller's (lambdas/subscriptions.ts), deployed with the first
// subscription: started every minute by an EventBridge rule, it delivers until shortly before its
// timeout and hands its partition leases on. Each subscription grants the poller exactly what it
// delivers to: lambda:InvokeFunction on the target, sqs:SendMessage or sns:Publish on onFailure.
import { CustomResource, Duration, Stack, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SUBSCRIPTION_PROPERTY, SUBSCRIPTION_RESOURCE_TYPE } from '../lib/api/subscription-resource.js';
import { resolveSubscriptionConfig, subscriptionGroup, validateSubscriptionName } from '../lib/subscriptions/subscription.js';

/** Where a subscription starts delivering (the values of lambda.StartingPosition). */
export type SubscriptionStartingPosition = 'TRIM_HORIZON' | 'LATEST' | 'AT_TIMESTAMP';

export interface SluiceSubscriptionOptions {
  /** The Sluice topic whose records are delivered. It must exist when the stack deploys. */
  readonly topic: string;
  /** The Lambda function the batches are delivered to (invoked synchronously, one batch per invocation). */
  readonly target: lambda.IFunction;
  /**
   * The subscription's name (its consumer group is `sluice-subscription.<name>`): 1 to 249 of ASCII
   * letters, digits, '.', '_' and '-'.
   * @default - the construct id
   */
  readonly subscriptionName?: string;
  /**
   * Records per batch at most, 1 to 10000.
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * How long to gather records before delivering a batch smaller than batchSize; at most 5 minutes.
   * @default Duration.seconds(0)
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Where delivery starts when the subscription is created: `TRIM_HORIZON` (the log start),
   * `LATEST` (the log end) or `AT_TIMESTAMP` (startingPositionTimestamp). `lambda.StartingPosition`
   * values work too.
   * @default 'LATEST'
   */
  readonly startingPosition?: SubscriptionStartingPosition | lambda.StartingPosition;
  /**
   * For `AT_TIMESTAMP`: the time to start from, in Unix time seconds (as CDK's event source mappings take it).
   * @default - none; required for (and only for) AT_TIMESTAMP
   */
  readonly startingPositionTimestamp?: number;
  /**
   * Split a failing batch in two and retry the halves, isolating a poison record.
   * @default false
   */
  readonly bisectBatchOnError?: boolean;
  /**
   * The target may answer `{batchItemFailures: [{itemIdentifier}]}`: only the failed records (and
   * those after them) are retried (FunctionResponseTypes ReportBatchItemFailures).
   * @default false
   */
  readonly reportBatchItemFailures?: boolean;
  /**
   * Retries of a failing batch before its records' metadata goes to onFailure; -1 retries until the
   * records reach maxRecordAge. 0 to 10000, or -1.
   * @default -1
   */
  readonly retryAttempts?: number;
  /**
   * Records older than this are not retried but sent to onFailure; 60 seconds to 7 days.
   * @default - no limit (-1)
   */
  readonly maxRecordAge?: Duration;
  /**
   * Where the metadata of records that could not be delivered goes: an SQS queue or an SNS topic.
   * The poller is granted SendMessage / Publish on it.
   * @default - none: failed records are logged and skipped
   */
  readonly onFailure?: sqs.IQueue | sns.ITopic;
  /**
   * Batches in flight per partition, 1 to 10; records of one key stay in order.
   * @default 1
   */
  readonly parallelizationFactor?: number;
  /**
   * A disabled subscription delivers nothing and keeps its committed offsets.
   * @default true
   */
  readonly enabled?: boolean;
}

export interface SluiceSubscriptionProps extends SluiceSubscriptionOptions {
  /** The log's admin function: the custom resource's service token. */
  readonly adminFunction: lambda.IFunction;
  /** The subscriptions poller, granted invoke on the target and access to onFailure. */
  readonly poller: lambda.IFunction;
}

function isQueue(destination: sqs.IQueue | sns.ITopic): destination is sqs.IQueue {
  return 'queueArn' in destination;
}

/** The createSubscription input these options stand for (tokens for the ARNs). */
function subscriptionInput(name: string, props: SluiceSubscriptionOptions): Record<string, unknown> {
  const onFailure = props.onFailure
    ? isQueue(props.onFailure)
      ? { type: 'sqs', queueArn: props.onFailure.queueArn }
      : { type: 'sns', topicArn: props.onFailure.topicArn }
    : undefined;
  const reportBatchItemFailures = props.reportBatchItemFailures;
  return {
    name,
    topic: props.topic,
    target: { type: 'lambda', functionArn: props.target.functionArn },
    batchSize: props.batchSize,
    maximumBatchingWindowMs: props.maxBatchingWindow?.toMilliseconds(),
    startingPosition: props.startingPosition,
    startingPositionTimestamp: props.startingPositionTimestamp === undefined ? undefined : props.startingPositionTimestamp * 1000,
    bisectBatchOnFunctionError: props.bisectBatchOnError,
    functionResponseTypes: reportBatchItemFailures === undefined ? undefined : reportBatchItemFailures ? ['ReportBatchItemFailures'] : [],
    maximumRetryAttempts: props.retryAttempts,
    maximumRecordAgeMs: props.maxRecordAge?.toMilliseconds(),
    onFailure,
    parallelizationFactor: props.parallelizationFactor,
    enabled: props.enabled,
  };
}

/** Synth-time validation with the service's own rules, so a bad option fails `cdk synth`, not the deploy. */
function validate(scope: Construct, input: Record<string, unknown>): void {
  const fail = (message: string): never => {
    throw new Error(`addSubscription ${scope.node.path}: ${message}`);
  };
  const { name, topic, target: _target, onFailure: _onFailure, ...config } = input;
  try {
    validateSubscriptionName(name);
    if (!Token.isUnresolved(topic) && (typeof topic !== 'string' || !/^(?!\.{1,2}$)[a-zA-Z0-9._-]{1,249}$/.test(topic))) {
      fail(`topic must be a topic name (1 to 249 of ASCII letters, digits, '.', '_' and '-'), got '${String(topic)}'`);
    }
    const concrete = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined && !Token.isUnresolved(v)));
    resolveSubscriptionConfig(concrete);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith('addSubscription ')) throw e;
    fail(e instanceof Error ? e.message : String(e));
  }
}

/** One subscription of a SluiceLog (made by `sluiceLog.addSubscription`). */
export class SluiceSubscription extends Construct {
  /** The subscription's name, as `sluice subscriptions describe` takes it. */
  readonly subscriptionName: string;
  /** The consumer group holding its committed offsets (`sluice groups describe` shows it). */
  readonly group: string;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: SluiceSubscriptionProps) {
    super(scope, id);
    this.subscriptionName = props.subscriptionName ?? id;
    this.group = subscriptionGroup(this.subscriptionName);
    const input = subscriptionInput(this.subscriptionName, props);
    validate(this, input);

    // Least privilege: the unqualified ARN the subscription names (a version or alias target's
    // functionArn is itself qualified), not `function:*`.
    iam.Grant.addToPrincipal({ grantee: props.poller, actions: ['lambda:InvokeFunction'], resourceArns: [props.target.functionArn] });
    if (props.onFailure) {
      if (isQueue(props.onFailure)) props.onFailure.grantSendMessages(props.poller);
      else props.onFailure.grantPublish(props.poller);
    }

    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: props.adminFunction.functionArn,
      resourceType: SUBSCRIPTION_RESOURCE_TYPE,
      // One JSON string: CloudFormation hands a custom resource every scalar as a string.
      properties: { [SUBSCRIPTION_PROPERTY]: Stack.of(this).toJsonString(input) },
    });
    // The admin function must be able to write the table before CloudFormation asks it to.
    const adminRole = props.adminFunction.role;
    if (adminRole) this.resource.node.addDependency(adminRole);
  }
}

/** The rule that starts the poller every minute (any event means one delivery run). */
export function subscriptionSchedule(scope: Construct, id: string, poller: lambda.IFunction): events.Rule {
  return new events.Rule(scope, id, {
    description: 'Starts the Sluice subscriptions poller: delivers subscribed topics to their targets until shortly before its timeout',
    schedule: events.Schedule.rate(Duration.minutes(1)),
    // No retries: the next minute's run takes the same leases over.
    targets: [new targets.LambdaFunction(poller, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
  });
}
