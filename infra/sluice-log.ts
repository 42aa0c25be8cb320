// SluiceLog: one complete Sluice deployment as a reusable L3 construct — the segment bucket,
// the metadata table (single-table layout of lib/metadata/keys.ts: `pk`/`sk` strings), one
// Lambda function per concern, the IAM-authorized HTTP API, the retention schedule, and the
// dashboard and alarms. Callers get access with `grantProduce/grantConsume/grantAdmin/
// grantGroupAdmin` (grants.ts): HTTP routes (execute-api:Invoke), optionally scoped to topics and
// groups, and direct invoke (lambda:InvokeFunction) only when asked, since it is never scoped.
//
// Bucket versioning is deliberately off: segment objects are immutable with unique keys, and a
// delete is always retention's or topic deletion's intent — versioning would keep every deleted
// segment billed forever. Durability comes from S3 itself; the table has point-in-time recovery.
import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { DEFAULT_MEMORY_MB, SluiceFunctions } from './sluice-functions.js';
import { SluiceHttpApi, type ThrottleSettings } from './sluice-http-api.js';
import { SluiceMonitoring } from './sluice-monitoring.js';
import { addSluiceNagSuppressions } from './nag-suppressions.js';
import { SLUICE_ROUTES, type SluiceFunctionName, type SluiceHandlerName } from './routes.js';
import { SluiceSubscription, type SluiceSubscriptionOptions, subscriptionSchedule } from './sluice-subscription.js';
import { type GrantKind, type GrantOptions, grantFunctions, grantRoutes } from './grants.js';
import { type KafkaGatewayProps, SluiceKafkaGateway } from './sluice-kafka-gateway.js';

export interface SluiceLogProps {
  /**
   * What happens to the segment bucket when it leaves the stack. A bucket that still holds
   * objects cannot be destroyed by CloudFormation; empty it first.
   * @default RemovalPolicy.RETAIN
   */
  readonly bucketRemovalPolicy?: RemovalPolicy;
  /**
   * What happens to the metadata table when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly tableRemovalPolicy?: RemovalPolicy;
  /**
   * How often the retention function runs one maintenance pass (retention by `retention.ms` /
   * `retention.bytes`, segment merging, the orphan sweep).
   * @default events.Schedule.rate(Duration.minutes(5))
   */
  readonly retentionSchedule?: events.Schedule;
  /**
   * Partition lease length (SLUICE_LEASE_MS): how long a produce invocation stays leader of a
   * partition without renewing. Shorter = faster failover, more lease writes.
   * @default Duration.seconds(5)
   */
  readonly leaseDuration?: Duration;
  /**
   * How long an unreferenced object survives before deletion (SLUICE_GRACE_MS); must exceed
   * any fetch or handler cache lifetime.
   * @default Duration.minutes(5)
   */
  readonly graceDuration?: Duration;
  /**
   * Memory (MB) per function; unspecified functions keep their default. `subscriptions` is the
   * poller deployed with the first addSubscription.
   * @default { produce: 512, fetch: 512, admin: 256, groups: 256, retention: 512, subscriptions: 512 }
   */
  readonly memorySize?: Partial<Record<SluiceHandlerName, number>>;
  /**
   * Reserved concurrency per function: caps what one caller (or a retry storm) can take of the
   * account's Lambda concurrency, bounds cost, and keeps the table's request rate within reason.
   * Reserving takes concurrency away from the rest of the account, and AWS refuses a deployment
   * that leaves less than 100 unreserved: in an account with a low quota pass smaller numbers, or
   * 'none' to leave a function unreserved. Retention runs one at a time on purpose. The
   * subscriptions poller (reserved only once addSubscription deploys it) is started every minute
   * and runs 90 s, so 2 are the overlap of consecutive runs and the third room for a slow one.
   * @default { produce: 50, fetch: 50, admin: 5, groups: 20, retention: 1, subscriptions: 3 }
   */
  readonly reservedConcurrency?: Partial<Record<SluiceHandlerName, number | 'none'>>;
  /**
   * Default throttle of every HTTP API route (the `$default` stage): steady requests per second
   * and burst. Calls over it get 429 from API Gateway before any function runs.
   * @default { rateLimit: 1000, burstLimit: 2000 }
   */
  readonly throttle?: ThrottleSettings;
  /**
   * Throttles of single routes, keyed `METHOD /path` as the routes are declared (e.g.
   * `'POST /v1/topics/{topic}/records'`); they replace the default throttle for that route.
   * @default - topic and group administration routes at { rateLimit: 10, burstLimit: 20 } (see DEFAULT_ROUTE_THROTTLE)
   */
  readonly routeThrottle?: Readonly<Record<string, ThrottleSettings>>;
  /**
   * SNS topic every alarm notifies (on ALARM and back to OK).
   * @default - alarms without actions
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Customer-managed KMS key for the bucket (with an S3 Bucket Key) and the table.
   * @default - S3-managed keys (SSE-S3) for the bucket, the AWS managed key for the table
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * Retention of the function and API access log groups.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Prefix of the physical names (functions `<prefix>-produce`…, API, dashboard) and the
   * Powertools `service` name of logs and metrics. Lets several logs share an account.
   * @default 'sluice'
   */
  readonly namePrefix?: string;
  /**
   * Key prefix of all segment objects in the bucket (SLUICE_PREFIX); data permissions are scoped to it.
   * @default 'log'
   */
  readonly dataPrefix?: string;
  /**
   * A Kafka wire-protocol gateway for unchanged Kafka clients: ECS Fargate tasks behind a Network
   * Load Balancer with a TLS listener (or, with `loadBalancer: false`, registered in AWS Cloud Map
   * and terminating TLS themselves), IAM authentication (SASL/OAUTHBEARER), autoscaling on CPU
   * (infra/sluice-kafka-gateway.ts). `cdk deploy` then needs Docker or Finch to build its image.
   * @default - no gateway
   */
  readonly kafkaGateway?: KafkaGatewayProps;
}

export const DEFAULT_RESERVED_CONCURRENCY: Readonly<Record<SluiceHandlerName, number>> = {
  produce: 50,
  fetch: 50,
  admin: 5,
  groups: 20,
  retention: 1,
  subscriptions: 3,
};

export const DEFAULT_THROTTLE: ThrottleSettings = { rateLimit: 1000, burstLimit: 2000 };

const ADMIN_THROTTLE: ThrottleSettings = { rateLimit: 10, burstLimit: 20 };

/**
 * Administration is rare and each call is heavy (deleting a topic lists and deletes its objects),
 * so its routes get a low throttle of their own: a loop of create/delete calls cannot starve the data path.
 */
export const DEFAULT_ROUTE_THROTTLE: Readonly<Record<string, ThrottleSettings>> = Object.fromEntries(
  SLUICE_ROUTES.filter(
    (r) =>
      (r.fn === 'admin' && r.method !== 'GET') ||
      (r.fn === 'groups' && (r.path.endsWith('/reset') || (r.method === 'DELETE' && r.path === '/v1/groups/{group}'))),
  ).map((r) => [`${r.method} ${r.path}`, ADMIN_THROTTLE]),
);

function reservedConcurrency(values: Partial<Record<SluiceHandlerName, number | 'none'>>): Partial<Record<SluiceHandlerName, number>> {
  const out: Partial<Record<SluiceHandlerName, number>> = {};
  for (const [name, value] of Object.entries(values) as [SluiceHandlerName, number | 'none'][]) {
    if (value === 'none') continue;
    if (!Number.isInteger(value) || value < 1) throw new Error(`reservedConcurrency.${name} must be a positive integer or 'none', got ${value}`);
    out[name] = value;
  }
  return out;
}

export class SluiceLog extends Construct {
  readonly bucket: s3.Bucket;
  readonly table: dynamodb.Table;
  readonly functions: Readonly<Record<SluiceFunctionName, NodejsFunction>>;
  readonly api: SluiceHttpApi;
  readonly retentionRule: events.Rule;
  readonly monitoring: SluiceMonitoring;
  /** The Kafka gateway, when `kafkaGateway` is set. */
  readonly kafkaGateway?: SluiceKafkaGateway;
  private readonly functionSet: SluiceFunctions;
  private poller?: NodejsFunction;

  constructor(scope: Construct, id: string, props: SluiceLogProps = {}) {
    super(scope, id);
    const namePrefix = props.namePrefix ?? 'sluice';
    const dataPrefix = props.dataPrefix ?? 'log';
    const leaseDuration = props.leaseDuration ?? Duration.seconds(5);
    const graceDuration = props.graceDuration ?? Duration.minutes(5);
    const memorySize = { ...DEFAULT_MEMORY_MB, ...props.memorySize };
    validate(this, { namePrefix, dataPrefix, leaseDuration, graceDuration, memorySize });
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;

    this.bucket = new s3.Bucket(this, 'Segments', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: props.encryptionKey ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
      encryptionKey: props.encryptionKey,
      bucketKeyEnabled: props.encryptionKey ? true : undefined,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      removalPolicy: props.bucketRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.table = new dynamodb.Table(this, 'Metadata', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: props.encryptionKey ? dynamodb.TableEncryption.CUSTOMER_MANAGED : dynamodb.TableEncryption.AWS_MANAGED,
      encryptionKey: props.encryptionKey,
      removalPolicy: props.tableRemovalPolicy ?? RemovalPolicy.RETAIN,
    });

    const data = { bucket: this.bucket, table: this.table, dataPrefix, encryptionKey: props.encryptionKey };
    const environment = {
      SLUICE_BUCKET: this.bucket.bucketName,
      SLUICE_TABLE: this.table.tableName,
      SLUICE_PREFIX: dataPrefix,
      SLUICE_LEASE_MS: String(leaseDuration.toMilliseconds()),
      SLUICE_GRACE_MS: String(graceDuration.toMilliseconds()),
      POWERTOOLS_SERVICE_NAME: namePrefix,
      POWERTOOLS_METRICS_NAMESPACE: 'Sluice',
    };
    this.functionSet = new SluiceFunctions(this, 'Functions', {
      data,
      namePrefix,
      memorySize,
      reservedConcurrency: reservedConcurrency({ ...DEFAULT_RESERVED_CONCURRENCY, ...props.reservedConcurrency }),
      logRetention,
      logRemovalPolicy: RemovalPolicy.RETAIN,
      environment,
    });
    this.functions = this.functionSet.functions;

    this.api = new SluiceHttpApi(this, 'Http', {
      functions: this.functions,
      routes: SLUICE_ROUTES,
      apiName: `${namePrefix}-api`,
      logRetention,
      logRemovalPolicy: RemovalPolicy.RETAIN,
      throttle: props.throttle ?? DEFAULT_THROTTLE,
      routeThrottle: props.routeThrottle ?? DEFAULT_ROUTE_THROTTLE,
    });

    // The retention function (lambdas/retention.ts) takes EventBridge's own "Scheduled Event":
    // any event means one maintenance pass.
    this.retentionRule = new events.Rule(this, 'RetentionSchedule', {
      description: 'Runs Sluice maintenance: retention (retention.ms / retention.bytes), segment merging, orphan sweep',
      schedule: props.retentionSchedule ?? events.Schedule.rate(Duration.minutes(5)),
      targets: [
        new targets.LambdaFunction(this.functions.retention, {
          retryAttempts: 2,
          maxEventAge: Duration.minutes(5),
        }),
      ],
    });

    this.monitoring = new SluiceMonitoring(this, 'Monitoring', {
      functions: this.functions,
      httpApi: this.api.httpApi,
      table: this.table,
      serviceName: namePrefix,
      dashboardName: `${namePrefix}-log`,
      alarmTopic: props.alarmTopic,
    });

    if (props.kafkaGateway) {
      this.kafkaGateway = new SluiceKafkaGateway(this, 'KafkaGateway', {
        ...props.kafkaGateway,
        data,
        environment,
        namePrefix,
        logRetention,
        logRemovalPolicy: RemovalPolicy.RETAIN,
      });
      this.monitoring.addKafkaGateway(this.kafkaGateway);
    }

    addSluiceNagSuppressions(this);
  }

  /**
   * The subscriptions poller (lambdas/subscriptions.ts), deployed with the first addSubscription.
   * A subscription created over the HTTP API or the CLI with a Lambda target needs
   * `target.grantInvoke(sluiceLog.subscriptionPoller)`; addSubscription grants it itself.
   */
  get subscriptionPoller(): lambda.IFunction | undefined {
    return this.poller;
  }

  /**
   * Delivers `topic` to the Lambda function `target` in batches, as an event source mapping does
   * (infra/sluice-subscription.ts): a `Custom::SluiceSubscription` resource created and deleted
   * with the stack, invoke permission on the target and SendMessage/Publish on `onFailure` for the
   * poller, which the first subscription deploys with its schedule, reserved concurrency and alarms.
   */
  addSubscription(id: string, options: SluiceSubscriptionOptions): SluiceSubscription {
    const subscription = new SluiceSubscription(this, id, { ...options, adminFunction: this.functions.admin, poller: this.enableSubscriptions() });
    this.monitoring.addSubscription(subscription.subscriptionName);
    return subscription;
  }

  private enableSubscriptions(): NodejsFunction {
    if (this.poller) return this.poller;
    const poller = this.functionSet.optionalFunction('subscriptions');
    subscriptionSchedule(this, 'SubscriptionsSchedule', poller);
    this.monitoring.addFunction('subscriptions', poller);
    // Created after the constructor's suppressions were applied: the same accepted findings.
    addSluiceNagSuppressions(poller);
    if (poller.role) addSluiceNagSuppressions(poller.role);
    this.poller = poller;
    return poller;
  }

  /**
   * Produce to `topics` (and describe them, as Kafka's Write implies Describe) and allocate
   * producer ids. Direct invoke of the produce function only with `directInvoke`.
   */
  grantProduce(grantee: iam.IGrantable, options: GrantOptions = {}): iam.Grant {
    return this.grantKind(grantee, 'produce', options);
  }

  /**
   * Fetch and list offsets of `topics`, describe them, and take part in `groups`: join, heartbeat,
   * leave, commit and read committed offsets. Not group administration (grantGroupAdmin).
   */
  grantConsume(grantee: iam.IGrantable, options: GrantOptions = {}): iam.Grant {
    return this.grantKind(grantee, 'consume', options);
  }

  /** Create, list, describe, grow and delete topics (`topics` scopes describe, grow and delete; creating names its topic in the body, so it cannot be scoped). */
  grantAdmin(grantee: iam.IGrantable, options: GrantOptions = {}): iam.Grant {
    return this.grantKind(grantee, 'admin', options);
  }

  /** Administer `groups`: reset offsets, delete groups, remove members, describe and list groups. */
  grantGroupAdmin(grantee: iam.IGrantable, options: GrantOptions = {}): iam.Grant {
    return this.grantKind(grantee, 'groupAdmin', options);
  }

  private grantKind(grantee: iam.IGrantable, kind: GrantKind, options: GrantOptions): iam.Grant {
    const grant = this.api.grantInvokeRoutes(grantee, grantRoutes(kind, options));
    if (!options.directInvoke) return grant;
    const invoke = iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:InvokeFunction'],
      // Unqualified ARNs: Sluice publishes no versions or aliases.
      resourceArns: grantFunctions(kind).map((fn) => this.functions[fn].functionArn),
    });
    return grant.combine(invoke);
  }
}

function validate(
  scope: Construct,
  p: {
    namePrefix: string;
    dataPrefix: string;
    leaseDuration: Duration;
    graceDuration: Duration;
    memorySize: Record<SluiceHandlerName, number>;
  },
): void {
  const fail = (message: string): never => {
    throw new Error(`SluiceLog ${scope.node.path}: ${message}`);
  };
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(p.namePrefix)) {
    fail(`namePrefix must be 1-40 characters of [A-Za-z0-9_-] starting with a letter or digit, got '${p.namePrefix}'`);
  }
  if (p.dataPrefix !== '' && !/^[A-Za-z0-9!_.*'()-]+(\/[A-Za-z0-9!_.*'()-]+)*$/.test(p.dataPrefix)) {
    fail(`dataPrefix must be '' or S3-safe path segments without leading/trailing '/', got '${p.dataPrefix}'`);
  }
  if (!Token.isUnresolved(p.leaseDuration) && p.leaseDuration.toMilliseconds() < 1000) {
    fail(`leaseDuration must be at least 1 second, got ${p.leaseDuration.toHumanString()}`);
  }
  if (p.graceDuration.toMilliseconds() <= p.leaseDuration.toMilliseconds()) {
    fail(`graceDuration (${p.graceDuration.toHumanString()}) must be longer than leaseDuration (${p.leaseDuration.toHumanString()})`);
  }
  for (const [name, mb] of Object.entries(p.memorySize)) {
    if (!Number.isInteger(mb) || mb < 128 || mb > 10240) fail(`memorySize.${name} must be an integer 128-10240 MB, got ${mb}`);
  }
}
