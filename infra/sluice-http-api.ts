// The HTTP API of README.md: API Gateway HTTP API, IAM (SigV4) authorization on every
// route (the default authorizer, so no route can be added without it), one Lambda integration
// per function (payload format 2.0), a `$default` route answering unmatched requests with the
// contract's errors, and JSON access logs on the `$default` stage.
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { SluiceRoute } from './routes.js';

/** API Gateway throttling: steady requests per second and burst (token bucket size). */
export interface ThrottleSettings {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface SluiceHttpApiProps {
  readonly functions: Readonly<Record<SluiceRoute['fn'], lambda.IFunction>>;
  readonly routes: readonly SluiceRoute[];
  readonly apiName: string;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Every route's throttle unless routeThrottle names it. */
  readonly throttle: ThrottleSettings;
  /** Per-route throttles, keyed `METHOD /path` as in SLUICE_ROUTES (e.g. 'DELETE /v1/topics/{topic}'). */
  readonly routeThrottle: Readonly<Record<string, ThrottleSettings>>;
}

const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  routeKey: '$context.routeKey',
  status: '$context.status',
  caller: '$context.identity.userArn',
  sourceIp: '$context.identity.sourceIp',
  requestTime: '$context.requestTimeEpoch',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
};

export class SluiceHttpApi extends Construct {
  readonly httpApi: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;

  constructor(scope: Construct, id: string, props: SluiceHttpApiProps) {
    super(scope, id);
    this.httpApi = new apigwv2.HttpApi(this, 'Api', {
      apiName: props.apiName,
      description: 'Sluice: Kafka-style partitioned log (see api.md). Every route requires SigV4 (IAM).',
      defaultAuthorizer: new HttpIamAuthorizer(),
      createDefaultStage: false,
    });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.stage = new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      // Without it one caller can spend the account's Lambda concurrency (and the table's capacity).
      throttle: props.throttle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    const integrations = new Map<SluiceRoute['fn'], HttpLambdaIntegration>();
    const integrationOf = (fn: SluiceRoute['fn']) => {
      let integration = integrations.get(fn);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${fn}-integration`, props.functions[fn]);
        integrations.set(fn, integration);
      }
      return integration;
    };
    const routes: apigwv2.HttpRoute[] = [];
    for (const route of props.routes) {
      routes.push(...this.httpApi.addRoutes({ path: route.path, methods: [apigwv2.HttpMethod[route.method]], integration: integrationOf(route.fn) }));
    }
    const known = new Set(props.routes.map((r) => `${r.method} ${r.path}`));
    for (const key of Object.keys(props.routeThrottle)) {
      if (!known.has(key)) throw new Error(`routeThrottle: '${key}' is not a route; routes are ${[...known].join(', ')}`);
    }
    if (Object.keys(props.routeThrottle).length > 0) {
      // Route settings name routes by key, which CloudFormation resolves only once the routes exist.
      for (const route of routes) this.stage.node.addDependency(route);
      (this.stage.node.defaultChild as apigwv2.CfnStage).routeSettings = Object.fromEntries(
        Object.entries(props.routeThrottle).map(([key, t]) => [key, { ThrottlingRateLimit: t.rateLimit, ThrottlingBurstLimit: t.burstLimit }]),
      );
    }
    // A request no route matches reaches the admin function, whose router answers it with the
    // contract's NOT_FOUND or METHOD_NOT_ALLOWED body, as the local server does (API Gateway's own
    // answer would be {"message":"Not Found"}). IAM-authorized like every route.
    new apigwv2.HttpRoute(this, 'UnmatchedRoute', {
      httpApi: this.httpApi,
      routeKey: apigwv2.HttpRouteKey.DEFAULT,
      integration: integrationOf('admin'),
    });
  }

  /** The API URL, ending in '/'. */
  get url(): string {
    return this.stage.url;
  }

  /**
   * `execute-api:Invoke` on exactly the given routes, any stage. Paths are taken as they are:
   * `{param}` segments become `*`, filled ones (a topic name) stay exact.
   */
  grantInvokeRoutes(grantee: iam.IGrantable, routes: readonly Pick<SluiceRoute, 'method' | 'path'>[]): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['execute-api:Invoke'],
      resourceArns: routes.map((r) => this.httpApi.arnForExecuteApi(r.method, r.path.replace(/\{[^}]+\}/g, '*'))),
    });
  }
}
