// SluiceLog: one complete Sluice deployment as a reusable L3 construct — the segment bucket,
// the metadata table (single-table layout of lib/metadata/keys.ts: `pk`/`sk` strings), one
// Lambda function per concern, the IAM-authorized HTTP API, the retention schedule, and the
// dashboard and alarms. Callers get access with `grantProduce/grantConsume/grantAdmin`, which
// cover both ways in: the HTTP routes (execute-api:Invoke) and direct invoke (lambda:InvokeFunction).
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
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { DEFAULT_MEMORY_MB, SluiceFunctions } from './sluice-functions.js';
import { SluiceHttpApi } from './sluice-http-api.js';
import { SluiceMonitoring } from './sluice-monitoring.js';
import { addSluiceNagSuppressions } from './nag-suppressions.js';
import { GRANT_SCOPES, RETENTION_SCHEDULE_OP, SLUICE_ROUTES, type SluiceFunctionName, type SluiceRoute } from './routes.js';

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
   * How often the retention function runs (deletes segments past `retention.ms` / `retention.bytes`).
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
   * Memory (MB) per function; unspecified functions keep their default.
   * @default { produce: 512, fetch: 512, admin: 256, groups: 256, retention: 512 }
   */
  readonly memorySize?: Partial<Record<SluiceFunctionName, number>>;
  /**
   * Reserved concurrency per function (caps cost and protects the table from bursts).
   * @default - no reserved concurrency
   */
  readonly reservedConcurrency?: Partial<Record<SluiceFunctionName, number>>;
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
}

export class SluiceLog extends Construct {
  readonly bucket: s3.Bucket;
  readonly table: dynamodb.Table;
  readonly functions: Readonly<Record<SluiceFunctionName, NodejsFunction>>;
  readonly api: SluiceHttpApi;
  readonly retentionRule: events.Rule;
  readonly monitoring: SluiceMonitoring;

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

    this.functions = new SluiceFunctions(this, 'Functions', {
      data: { bucket: this.bucket, table: this.table, dataPrefix, encryptionKey: props.encryptionKey },
      namePrefix,
      memorySize,
      reservedConcurrency: props.reservedConcurrency ?? {},
      logRetention,
      logRemovalPolicy: RemovalPolicy.RETAIN,
      environment: {
        SLUICE_BUCKET: this.bucket.bucketName,
        SLUICE_TABLE: this.table.tableName,
        SLUICE_PREFIX: dataPrefix,
        SLUICE_LEASE_MS: String(leaseDuration.toMilliseconds()),
        SLUICE_GRACE_MS: String(graceDuration.toMilliseconds()),
        POWERTOOLS_SERVICE_NAME: namePrefix,
        POWERTOOLS_METRICS_NAMESPACE: 'Sluice',
      },
    }).functions;

    this.api = new SluiceHttpApi(this, 'Http', {
      functions: this.functions,
      routes: SLUICE_ROUTES,
      apiName: `${namePrefix}-api`,
      logRetention,
      logRemovalPolicy: RemovalPolicy.RETAIN,
    });

    // Retention served through the operation registry needs an `{op}` event; a bespoke handler
    // gets EventBridge's own "Scheduled Event" (see scheduledRetentionOp).
    this.retentionRule = new events.Rule(this, 'RetentionSchedule', {
      description: 'Runs Sluice retention: deletes segments past retention.ms / retention.bytes',
      schedule: props.retentionSchedule ?? events.Schedule.rate(Duration.minutes(5)),
      targets: [
        new targets.LambdaFunction(this.functions.retention, {
          event: RETENTION_SCHEDULE_OP ? events.RuleTargetInput.fromObject({ op: RETENTION_SCHEDULE_OP }) : undefined,
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
    });

    addSluiceNagSuppressions(this);
  }

  /** Produce records and allocate producer ids: the produce routes and direct invoke of the produce function. */
  grantProduce(grantee: iam.IGrantable): iam.Grant {
    return this.grantScope(grantee, GRANT_SCOPES.produce);
  }

  /** Fetch records, list offsets and take part in consumer groups (join, heartbeat, commit). */
  grantConsume(grantee: iam.IGrantable): iam.Grant {
    return this.grantScope(grantee, GRANT_SCOPES.consume);
  }

  /** Create, describe, grow and delete topics. */
  grantAdmin(grantee: iam.IGrantable): iam.Grant {
    return this.grantScope(grantee, GRANT_SCOPES.admin);
  }

  private grantScope(grantee: iam.IGrantable, fns: readonly SluiceRoute['fn'][]): iam.Grant {
    const routes = SLUICE_ROUTES.filter((r) => fns.includes(r.fn));
    const invoke = iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:InvokeFunction'],
      // Unqualified ARNs: Sluice publishes no versions or aliases.
      resourceArns: fns.map((fn) => this.functions[fn].functionArn),
    });
    return this.api.grantInvokeRoutes(grantee, routes).combine(invoke);
  }
}

function validate(
  scope: Construct,
  p: {
    namePrefix: string;
    dataPrefix: string;
    leaseDuration: Duration;
    graceDuration: Duration;
    memorySize: Record<SluiceFunctionName, number>;
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
