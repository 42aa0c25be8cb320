// The five Lambda functions, one per concern (and, once the first subscription is added, the
// subscriptions poller: addFunction), each bundled from `lambdas/<name>.ts` by the local
// esbuild (never Docker) into a minified ESM file for Node 22 on arm64, with its own role (only
// the statements of function-permissions.ts plus writing its own log group) and log group.
import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { functionStatements, type DataResources } from './function-permissions.js';
import { SLUICE_FUNCTION_NAMES, type SluiceFunctionName, type SluiceHandlerName, type SluiceOptionalFunctionName } from './routes.js';

/** Repository root: handlers live in `lambdas/`, the lock file at the root. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export function handlerEntry(name: SluiceHandlerName): string {
  return fileURLToPath(new URL(`../lambdas/${name}.ts`, import.meta.url));
}

export const DEFAULT_MEMORY_MB: Readonly<Record<SluiceHandlerName, number>> = {
  produce: 512,
  fetch: 512,
  admin: 256,
  groups: 256,
  retention: 512,
  // The poller waits on fetches and target invocations, but holds a batch of up to 6 MB per lease.
  subscriptions: 512,
};

// API Gateway cuts HTTP integrations at 30 s; fetch long-polls up to SLUICE_MAX_WAIT_MS (20 s).
// Admin and retention may also run from direct invoke / the schedule, where deleting many
// segments can take longer. The poller is started every minute and delivers until shortly before
// its timeout (lambdas/subscriptions.ts): 90 s lets each run overlap the next by its hand-over
// margin, so a partition's lease passes on without a gap of a whole minute.
export const TIMEOUTS: Readonly<Record<SluiceHandlerName, Duration>> = {
  produce: Duration.seconds(30),
  fetch: Duration.seconds(30),
  admin: Duration.minutes(2),
  groups: Duration.seconds(30),
  retention: Duration.minutes(5),
  subscriptions: Duration.seconds(90),
};

/** esbuild options shared by the CDK bundling and the bundle-size test, so both measure one thing. */
export const BUNDLE_OPTIONS = {
  target: 'node22',
  minify: true,
  sourceMap: false,
  format: 'esm',
  // Node 22 on Lambda ships AWS SDK v3; bundling it would add ~1 MB to every cold start.
  externalModules: ['@aws-sdk/*'],
  mainFields: ['module', 'main'],
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: "import{createRequire as __sluiceCreateRequire}from'node:module';const require=__sluiceCreateRequire(import.meta.url);",
} as const;

export interface SluiceFunctionsProps {
  readonly data: DataResources;
  readonly namePrefix: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly memorySize: Readonly<Record<SluiceHandlerName, number>>;
  readonly reservedConcurrency: Readonly<Partial<Record<SluiceHandlerName, number>>>;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export class SluiceFunctions extends Construct {
  readonly functions: Readonly<Record<SluiceFunctionName, NodejsFunction>>;
  private readonly optional = new Map<SluiceOptionalFunctionName, NodejsFunction>();

  constructor(
    scope: Construct,
    id: string,
    private readonly props: SluiceFunctionsProps,
  ) {
    super(scope, id);
    const functions = {} as Record<SluiceFunctionName, NodejsFunction>;
    for (const name of SLUICE_FUNCTION_NAMES) {
      functions[name] = this.createFunction(name, props);
    }
    this.functions = functions;
  }

  /** The optional function `name`, created (with the same environment and conventions) on first use. */
  optionalFunction(name: SluiceOptionalFunctionName): NodejsFunction {
    let fn = this.optional.get(name);
    if (!fn) {
      fn = this.createFunction(name, this.props);
      this.optional.set(name, fn);
    }
    return fn;
  }

  private createFunction(name: SluiceHandlerName, props: SluiceFunctionsProps): NodejsFunction {
    const logGroup = new logs.LogGroup(this, `${name}-logs`, {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    const role = new iam.Role(this, `${name}-role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Sluice ${name} function: least-privilege access to the log's bucket and table`,
    });
    // Explicit log permissions instead of the AWSLambdaBasicExecutionRole managed policy.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }),
    );
    for (const statement of functionStatements(name, props.data)) role.addToPrincipalPolicy(statement);

    return new NodejsFunction(this, name, {
      functionName: `${props.namePrefix}-${name}`,
      description: `Sluice ${name} handler`,
      entry: handlerEntry(name),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: `${REPO_ROOT}package-lock.json`,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize[name],
      timeout: TIMEOUTS[name],
      reservedConcurrentExecutions: props.reservedConcurrency[name],
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: { ...props.environment },
      bundling: {
        forceDockerBundling: false,
        minify: BUNDLE_OPTIONS.minify,
        sourceMap: BUNDLE_OPTIONS.sourceMap,
        target: BUNDLE_OPTIONS.target,
        format: OutputFormat.ESM,
        externalModules: [...BUNDLE_OPTIONS.externalModules],
        mainFields: [...BUNDLE_OPTIONS.mainFields],
        banner: BUNDLE_OPTIONS.banner,
      },
    });
  }
}
