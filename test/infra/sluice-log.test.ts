// Template assertions on one synthesized default SluiceStack: the HTTP API, the schedule, the
// data-store hardening, per-function least privilege, runtimes, outputs, and cdk-nag.
import { beforeAll, describe, expect, it } from 'vitest';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { SLUICE_FUNCTION_NAMES } from '../../infra/routes.js';
import { SluiceStack } from '../../infra/sluice-stack.js';
import { functionIds, roleActions, roleOfFunction, synthesize } from './synth.js';

// The HTTP contract (README.md) and the function that must serve each path.
const API_MD_ROUTES: Record<string, string> = {
  'POST /v1/topics': 'admin',
  'GET /v1/topics': 'admin',
  'GET /v1/topics/{topic}': 'admin',
  'PATCH /v1/topics/{topic}': 'admin',
  'GET /v1/topics/{topic}/configs': 'admin',
  'DELETE /v1/topics/{topic}': 'admin',
  'POST /v1/topics/{topic}/partitions': 'admin',
  'POST /v1/topics/{topic}/records': 'produce',
  'POST /v1/producers': 'produce',
  'GET /v1/topics/{topic}/partitions/{partition}/records': 'fetch',
  'GET /v1/topics/{topic}/partitions/{partition}/offsets': 'fetch',
  'GET /v1/groups': 'groups',
  'GET /v1/groups/{group}': 'groups',
  'DELETE /v1/groups/{group}': 'groups',
  'POST /v1/groups/{group}/members': 'groups',
  'POST /v1/groups/{group}/members/{memberId}/heartbeat': 'groups',
  'DELETE /v1/groups/{group}/members/{memberId}': 'groups',
  'POST /v1/groups/{group}/offsets': 'groups',
  'GET /v1/groups/{group}/offsets': 'groups',
  'POST /v1/groups/{group}/offsets/reset': 'groups',
  'GET /v1/openapi.json': 'admin',
  'POST /v1/subscriptions': 'admin',
  'GET /v1/subscriptions': 'admin',
  'GET /v1/subscriptions/{name}': 'admin',
  'DELETE /v1/subscriptions/{name}': 'admin',
};

let template: Template;
let nagErrors: string[];
let fnIds: Record<string, string>;

beforeAll(() => {
  ({ template, nagErrors } = synthesize((app) => new SluiceStack(app, 'SluiceTest')));
  fnIds = functionIds(template);
});

describe('SluiceLog (default props)', () => {
  it('routes every api.md path to its function with IAM authorization on every route', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const servedBy: Record<string, string> = {};
    for (const route of routes) {
      expect(route.Properties.AuthorizationType, route.Properties.RouteKey).toBe('AWS_IAM');
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref;
      expect(integrations[integrationId].Properties.PayloadFormatVersion).toBe('2.0');
      const fnId = integrations[integrationId].Properties.IntegrationUri['Fn::GetAtt'][0];
      servedBy[route.Properties.RouteKey] = Object.keys(fnIds).find((name) => fnIds[name] === fnId)!;
    }
    expect(servedBy).toMatchObject(API_MD_ROUTES);
    // Anything else reaches the admin function, whose router answers with the contract's errors.
    expect(servedBy.$default).toBe('admin');
    expect(Object.keys(servedBy)).toHaveLength(Object.keys(API_MD_ROUTES).length + 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
  });

  it('runs retention on an EventBridge schedule every 5 minutes', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [fnIds.retention, 'Arn'] },
          Input: Match.absent(),
        }),
      ],
    });
  });

  it('hardens the segment bucket: no public access, encryption, TLS only, retained', () => {
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('makes the table on-demand, point-in-time recoverable, encrypted, keyed pk/sk strings, retained', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
      }),
    });
  });

  it('runs all five handlers on nodejs22.x arm64 with the Sluice environment', () => {
    expect(Object.keys(fnIds).sort()).toEqual([...SLUICE_FUNCTION_NAMES].sort());
    for (const name of SLUICE_FUNCTION_NAMES) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `sluice-${name}`,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: Match.objectLike({ LogFormat: 'JSON' }),
        Environment: {
          Variables: Match.objectLike({
            SLUICE_BUCKET: Match.anyValue(),
            SLUICE_TABLE: Match.anyValue(),
            SLUICE_PREFIX: 'log',
            SLUICE_LEASE_MS: '5000',
            SLUICE_GRACE_MS: '300000',
            POWERTOOLS_METRICS_NAMESPACE: 'Sluice',
          }),
        },
      });
    }
  });

  it('gives each function only the data actions it needs, never a wildcard', () => {
    const actions = Object.fromEntries(
      SLUICE_FUNCTION_NAMES.map((name) => [name, roleActions(template, roleOfFunction(template, fnIds[name]))]),
    );
    for (const [name, list] of Object.entries(actions)) {
      expect(list.filter((a) => a.includes('*')), name).toEqual([]);
      expect(list.filter((a) => !/^(s3|dynamodb|logs):/.test(a)), name).toEqual([]);
    }
    expect(actions.produce).toContain('s3:PutObject');
    expect(actions.produce.filter((a) => a.startsWith('s3:Delete'))).toEqual([]);
    expect(actions.fetch.filter((a) => a.startsWith('s3:') || a.startsWith('dynamodb:')).sort()).toEqual(
      ['dynamodb:GetItem', 'dynamodb:Query', 's3:GetObject'].sort(),
    );
    // resetOffsets {timestamp} reads segments; groups never writes or deletes objects.
    expect(actions.groups.filter((a) => a.startsWith('s3:'))).toEqual(['s3:GetObject']);
    expect(actions.retention).toEqual(expect.arrayContaining(['s3:DeleteObject', 's3:ListBucket', 'dynamodb:DeleteItem']));
    expect(actions.admin).toEqual(expect.arrayContaining(['s3:DeleteObject', 's3:ListBucket', 'dynamodb:DeleteItem']));
    // Object access is scoped to the data prefix.
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 's3:PutObject',
            Resource: { 'Fn::Join': ['', [Match.objectLike({ 'Fn::GetAtt': Match.anyValue() }), '/log/*']] },
          }),
        ]),
      },
    });
    // Listing is scoped to the data prefix too: every ListBucket statement carries the condition.
    const listStatements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown }[]).filter((st) =>
        [st.Action].flat().includes('s3:ListBucket'),
      ),
    );
    expect(listStatements.length).toBeGreaterThan(0);
    for (const st of listStatements) expect(st.Condition).toEqual({ StringLike: { 's3:prefix': ['log/*'] } });
  });

  it('has a dashboard, error and throttle alarms, and the stack outputs', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const metricNames = alarms.map((a) => a.Properties.MetricName ?? 'expression');
    expect(metricNames.filter((m) => m === 'Errors')).toHaveLength(5);
    expect(metricNames.filter((m) => m === 'Throttles')).toHaveLength(5);
    expect(metricNames).toContain('5xx');
    expect(metricNames).toContain('expression'); // DynamoDB read + write throttle events
    for (const output of ['ApiUrl', 'BucketName', 'TableName', 'ProduceFunctionName', 'RetentionFunctionName']) {
      template.hasOutput(output, {});
    }
  });

  it('throttles the stage by default, administration routes lower, and reserves concurrency per function', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 },
      RouteSettings: Match.objectLike({
        'POST /v1/topics': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
        'DELETE /v1/topics/{topic}': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
        'POST /v1/groups/{group}/offsets/reset': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
      }),
    });
    const settings = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0].Properties.RouteSettings;
    expect(settings['POST /v1/topics/{topic}/records']).toBeUndefined(); // the data path keeps the stage default
    const reserved = Object.fromEntries(
      SLUICE_FUNCTION_NAMES.map((name) => [name, template.toJSON().Resources[fnIds[name]].Properties.ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual({ produce: 50, fetch: 50, admin: 5, groups: 20, retention: 1 });
  });

  it('passes cdk-nag AwsSolutions checks with no unsuppressed errors', () => {
    expect(nagErrors).toEqual([]);
  });
});
