// sluiceLog.addSubscription synthesized: the poller function with its schedule and reserved
// concurrency (only once a subscription exists), the Custom::SluiceSubscription resource served by
// the admin function, invoke permission on exactly the target, SendMessage/Publish on exactly the
// onFailure destination, least-privilege roles, the dashboard's subscription rows and the
// iterator-age alarm, and cdk-nag without errors.
import { Duration, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { SluiceLog } from '../../infra/sluice-log.js';
import { SluiceStack } from '../../infra/sluice-stack.js';
import { functionIds, roleActions, roleOfFunction, synthesize } from './synth.js';

type Resources = Record<string, { Type: string; Properties: Record<string, any>; DependsOn?: string[] }>;

/** A target function whose own role is clean for cdk-nag (no managed policy), as a user's would be. */
function targetFunction(stack: Stack, id: string): lambda.Function {
  const role = new iam.Role(stack, `${id}Role`, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  const fn = new lambda.Function(stack, id, {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
    role,
  });
  NagSuppressions.addResourceSuppressions(fn, [{ id: 'AwsSolutions-L1', reason: 'test fixture: the runtime of a target is its owner\'s choice' }]);
  return fn;
}

/** A resolved token inside the JSON string, named by the resource it points at. */
function tokenName(token: Record<string, any>): string {
  if (token['Fn::GetAtt']) return `GetAtt:${token['Fn::GetAtt'][0]}`;
  if (token.Ref) return `Ref:${token.Ref}`;
  throw new Error(`unexpected token ${JSON.stringify(token)}`);
}

let template: Template;
let nagErrors: string[];
let ids: Record<string, string>;
let targets: { orders: string; audit: string };
let queueId: string;
let topicId: string;

beforeAll(() => {
  ({ template, nagErrors } = synthesize((app) => {
    const stack = new SluiceStack(app, 'SluiceSubscriptions');
    const orders = targetFunction(stack, 'OrdersHandler');
    const audit = targetFunction(stack, 'AuditHandler');
    const dlq = new sqs.Queue(stack, 'OrdersDlq', { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED });
    NagSuppressions.addResourceSuppressions(dlq, [{ id: 'AwsSolutions-SQS3', reason: 'test fixture: this queue is itself the dead-letter destination' }]);
    const alerts = new sns.Topic(stack, 'AuditFailures', { enforceSSL: true });
    stack.log.addSubscription('OrdersToFn', {
      topic: 'orders',
      target: orders,
      batchSize: 500,
      maxBatchingWindow: Duration.millis(500),
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      retryAttempts: 3,
      maxRecordAge: Duration.hours(1),
      onFailure: dlq,
      parallelizationFactor: 2,
    });
    stack.log.addSubscription('Audit', { topic: 'audit', target: audit, subscriptionName: 'audit-trail', onFailure: alerts });
    const s = Stack.of(stack);
    targets = { orders: s.getLogicalId(orders.node.defaultChild as lambda.CfnFunction), audit: s.getLogicalId(audit.node.defaultChild as lambda.CfnFunction) };
    queueId = s.getLogicalId(dlq.node.defaultChild as sqs.CfnQueue);
    topicId = s.getLogicalId(alerts.node.defaultChild as sns.CfnTopic);
    return stack;
  }));
  ids = functionIds(template);
});

describe('SluiceLog.addSubscription', () => {
  it('deploys the poller once, on nodejs22.x arm64 with the Sluice environment, reserved concurrency and a 90 s timeout', () => {
    expect(ids.subscriptions).toBeDefined();
    const pollers = Object.values(template.findResources('AWS::Lambda::Function') as Resources).filter(
      (f) => f.Properties.FunctionName === 'sluice-subscriptions',
    );
    expect(pollers).toHaveLength(1);
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'sluice-subscriptions',
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: 90,
      ReservedConcurrentExecutions: 3,
      Environment: { Variables: Match.objectLike({ SLUICE_TABLE: Match.anyValue(), SLUICE_BUCKET: Match.anyValue(), SLUICE_PREFIX: 'log' }) },
    });
  });

  it('starts the poller every minute from EventBridge, without retries', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.subscriptions, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [ids.subscriptions, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('creates each subscription as a Custom::SluiceSubscription served by the admin function, options under their API names', () => {
    const resources = template.findResources('Custom::SluiceSubscription') as Resources;
    expect(Object.keys(resources)).toHaveLength(2);
    const byName: Record<string, { spec: any; resource: Resources[string] }> = {};
    for (const r of Object.values(resources)) {
      expect(r.Properties.ServiceToken).toEqual({ 'Fn::GetAtt': [ids.admin, 'Arn'] });
      // The JSON is a Fn::Join of literal pieces and the ARNs' tokens: resolve those to their logical ids.
      const pieces = r.Properties.Subscription['Fn::Join'][1] as unknown[];
      const json = pieces.map((p) => (typeof p === 'string' ? p : tokenName(p as Record<string, any>))).join('');
      const spec = JSON.parse(json);
      byName[spec.name] = { spec, resource: r };
    }
    expect(byName.OrdersToFn.spec).toEqual({
      name: 'OrdersToFn',
      topic: 'orders',
      target: { type: 'lambda', functionArn: `GetAtt:${targets.orders}` },
      batchSize: 500,
      maximumBatchingWindowMs: 500,
      startingPosition: 'TRIM_HORIZON',
      bisectBatchOnFunctionError: true,
      functionResponseTypes: ['ReportBatchItemFailures'],
      maximumRetryAttempts: 3,
      maximumRecordAgeMs: 3_600_000,
      onFailure: { type: 'sqs', queueArn: `GetAtt:${queueId}` },
      parallelizationFactor: 2,
    });
    // Unset options are left to the service's defaults.
    expect(byName['audit-trail'].spec).toEqual({
      name: 'audit-trail',
      topic: 'audit',
      target: { type: 'lambda', functionArn: `GetAtt:${targets.audit}` },
      onFailure: { type: 'sns', topicArn: `Ref:${topicId}` },
    });
    // Created only once the admin function may write the table (its role and policy exist).
    for (const { resource } of Object.values(byName)) {
      expect(resource.DependsOn?.some((d) => d.includes('adminrole'))).toBe(true);
    }
  });

  it('lets the poller invoke exactly the targets and reach exactly the onFailure destinations', () => {
    const pollerRole = roleOfFunction(template, ids.subscriptions);
    const statements = Object.values(template.findResources('AWS::IAM::Policy') as Resources)
      .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === pollerRole))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const invoke = statements.filter((s) => [s.Action].flat().includes('lambda:InvokeFunction'));
    expect(invoke.map((s) => s.Resource)).toEqual(
      expect.arrayContaining([{ 'Fn::GetAtt': [targets.orders, 'Arn'] }, { 'Fn::GetAtt': [targets.audit, 'Arn'] }]),
    );
    expect(invoke.flatMap((s) => [s.Resource].flat())).toHaveLength(2);
    const send = statements.filter((s) => [s.Action].flat().includes('sqs:SendMessage'));
    expect(send.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [queueId, 'Arn'] }]);
    const publish = statements.filter((s) => [s.Action].flat().includes('sns:Publish'));
    expect(publish.map((s) => s.Resource)).toEqual([{ Ref: topicId }]);
    // No other function got any of these.
    for (const [name, id] of Object.entries(ids)) {
      if (name === 'subscriptions') continue;
      const actions = roleActions(template, roleOfFunction(template, id));
      expect(actions.filter((a) => /^(lambda|sqs|sns):/.test(a)), name).toEqual([]);
    }
  });

  it('gives the poller only explicit data actions, objects scoped to the data prefix', () => {
    const actions = roleActions(template, roleOfFunction(template, ids.subscriptions));
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
    expect(actions.filter((a) => a.startsWith('s3:')).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
    expect(actions).not.toContain('s3:DeleteObject');
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 'logs:PutLogEvents']));
    expect(actions.filter((a) => !/^(s3|dynamodb|logs|lambda|sqs|sns):/.test(a))).toEqual([]);
  });

  it("alarms on the poller's errors and throttles and on each subscription's iterator age, and graphs lag and deliveries", () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm') as Resources);
    const poller = alarms.filter((a) => JSON.stringify(a.Properties.Dimensions ?? []).includes(ids.subscriptions));
    expect(poller.map((a) => a.Properties.MetricName).sort()).toEqual(['Errors', 'Throttles']);
    const age = alarms.filter((a) => a.Properties.MetricName === 'IteratorAge');
    expect(age.map((a) => a.Properties.Dimensions.find((d: any) => d.Name === 'subscription').Value).sort()).toEqual(['OrdersToFn', 'audit-trail']);
    const dashboard = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0].Properties.DashboardBody);
    for (const name of ['OffsetLag', 'IteratorAge', 'DeliveredRecords', 'DeliveryFailures', 'OnFailureRecords']) expect(dashboard).toContain(name);
    expect(dashboard).toContain('audit-trail');
  });

  it('passes cdk-nag AwsSolutions checks with no unsuppressed errors', () => {
    expect(nagErrors).toEqual([]);
  });
});

describe('SluiceLog without subscriptions', () => {
  it('deploys no poller, schedule or subscription resource', () => {
    const { template: plain } = synthesize((app) => new SluiceStack(app, 'SluicePlain'));
    expect(functionIds(plain).subscriptions).toBeUndefined();
    plain.resourceCountIs('Custom::SluiceSubscription', 0);
    expect(Object.values(plain.findResources('AWS::Events::Rule')).map((r) => r.Properties.ScheduleExpression)).toEqual(['rate(5 minutes)']);
  });
});

describe('addSubscription validation', () => {
  const attempt = (options: Partial<Parameters<SluiceLog['addSubscription']>[1]>, id = 'Sub') => () =>
    synthesize((app) => {
      const stack = new SluiceStack(app, 'SluiceBad');
      stack.log.addSubscription(id, { topic: 'orders', target: targetFunction(stack, 'Target'), ...options });
      return stack;
    });

  it('fails synth with the service rule for a bad option or name', () => {
    expect(attempt({ batchSize: 0 })).toThrow(/batchSize must be an integer from 1 to 10000/);
    expect(attempt({ maxRecordAge: Duration.seconds(30) })).toThrow(/maximumRecordAgeMs/);
    expect(attempt({ parallelizationFactor: 11 })).toThrow(/parallelizationFactor/);
    expect(attempt({ startingPosition: lambda.StartingPosition.AT_TIMESTAMP })).toThrow(/AT_TIMESTAMP needs startingPositionTimestamp/);
    expect(attempt({ topic: 'no spaces' })).toThrow(/topic must be a topic name/);
    expect(attempt({}, 'bad name')).toThrow(/subscription name 'bad name' is illegal/);
  });
});
