// grant*() statements on one synthesized stack with a grantee role per kind of grant, scoped and
// unscoped, and the customer-managed-key variant. The security review's findings as assertions:
// no grant's route ARN matches a route outside the grant (grantAdmin reading records was one),
// group administration is not part of grantConsume, topics/groups scope the ARNs exactly, and
// lambda:InvokeFunction comes only with `directInvoke`.
import { beforeAll, describe, expect, it } from 'vitest';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { allOperations } from '../../lib/api/operations.js';
import { GRANT_OPERATIONS, type GrantKind, type GrantOptions, arnPatternMatches } from '../../infra/grants.js';
import { SluiceLog } from '../../infra/sluice-log.js';
import { functionIds, roleActions, roleOfFunction, synthesize } from './synth.js';

let template: Template;
let nagErrors: string[];
let fnIds: Record<string, string>;
const roleIds: Record<string, string> = {};

type Statement = { Action: string | string[]; Resource: unknown };

function statementsOf(roleId: string): Statement[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy'));
  return policies
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

/** The route part of an execute-api ARN built by arnForExecuteApi: `/<stage>/<METHOD>/<path>`. */
function routeArns(roleId: string): string[] {
  const st = statementsOf(roleId).find((s) => s.Action === 'execute-api:Invoke')!;
  return [st.Resource].flat().map((r: any) => r['Fn::Join'][1].at(-1) as string);
}

function invokedFunctions(roleId: string): string[] | undefined {
  const st = statementsOf(roleId).find((s) => s.Action === 'lambda:InvokeFunction');
  return st && [st.Resource].flat().map((r: any) => r['Fn::GetAtt'][0]);
}

const GRANTEES: Record<string, { kind: GrantKind; options?: GrantOptions }> = {
  ProducerAll: { kind: 'produce' },
  ProducerOrders: { kind: 'produce', options: { topics: ['orders', 'audit'] } },
  ConsumerAll: { kind: 'consume' },
  ConsumerBilling: { kind: 'consume', options: { topics: ['orders'], groups: ['billing'] } },
  AdminAll: { kind: 'admin' },
  AdminOrders: { kind: 'admin', options: { topics: ['orders'] } },
  GroupAdminAll: { kind: 'groupAdmin' },
  GroupAdminBilling: { kind: 'groupAdmin', options: { groups: ['billing'] } },
  ProducerInvoker: { kind: 'produce', options: { topics: ['orders'], directInvoke: true } },
};

const METHOD: Record<GrantKind, 'grantProduce' | 'grantConsume' | 'grantAdmin' | 'grantGroupAdmin'> = {
  produce: 'grantProduce',
  consume: 'grantConsume',
  admin: 'grantAdmin',
  groupAdmin: 'grantGroupAdmin',
};

/** A concrete request path of an operation, for topic `orders` and group `billing` (names every scoped grantee holds). */
const concretePath = (path: string) =>
  path.replace('{topic}', 'orders').replace('{group}', 'billing').replace('{partition}', '0').replace('{memberId}', 'm-1');

beforeAll(() => {
  ({ template, nagErrors } = synthesize((app) => {
    const stack = new Stack(app, 'SluiceGrants');
    const encryptionKey = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
    const alarmTopic = new sns.Topic(stack, 'Alarms', { enforceSSL: true, masterKey: encryptionKey });
    const log = new SluiceLog(stack, 'Log', { namePrefix: 'orders', encryptionKey, alarmTopic });
    for (const [name, { kind, options }] of Object.entries(GRANTEES)) {
      const role = new iam.Role(stack, name, { assumedBy: new iam.AccountRootPrincipal() });
      expect(log[METHOD[kind]](role, options).success).toBe(true);
      roleIds[name] = stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
    }
    return stack;
  }));
  fnIds = functionIds(template, 'orders');
});

describe('SluiceLog grants', () => {
  it('no grant has a route ARN matching a route outside it (admin cannot read records)', () => {
    for (const [name, { kind }] of Object.entries(GRANTEES)) {
      const outside = allOperations.filter((op) => !GRANT_OPERATIONS[kind].includes(op.name));
      for (const arn of routeArns(roleIds[name])) {
        const pattern = arn.replace(/^\/\*\//, ''); // drop the stage: METHOD/path
        for (const op of outside) {
          const request = `${op.method}${concretePath(op.path)}`;
          expect(arnPatternMatches(pattern, request), `${name}: ${arn} matches ${op.name} (${request})`).toBe(false);
        }
      }
    }
    // The finding itself: today's `GET /v1/topics/*` matched the fetch route.
    expect(arnPatternMatches('GET/v1/topics/*', 'GET/v1/topics/orders/partitions/0/records')).toBe(true);
    expect(routeArns(roleIds.AdminAll)).not.toContain('/*/GET/v1/topics/*');
  });

  it('grantProduce scoped to topics allows exactly their produce and describe routes, plus producer ids', () => {
    expect(routeArns(roleIds.ProducerOrders).sort()).toEqual(
      ['/*/POST/v1/topics/orders/records', '/*/POST/v1/topics/audit/records', '/*/GET/v1/topics/orders', '/*/GET/v1/topics/audit', '/*/POST/v1/producers'].sort(),
    );
    // For all topics, describe is left out: GET /v1/topics/* would match the data routes.
    expect(routeArns(roleIds.ProducerAll).sort()).toEqual(['/*/POST/v1/producers', '/*/POST/v1/topics/*/records']);
  });

  it('grantConsume scoped to a topic and a group allows reading it and membership of the group only', () => {
    expect(routeArns(roleIds.ConsumerBilling).sort()).toEqual(
      [
        '/*/GET/v1/topics/orders/partitions/*/records',
        '/*/GET/v1/topics/orders/partitions/*/offsets',
        '/*/GET/v1/topics/orders',
        '/*/GET/v1/topics/orders/configs',
        '/*/POST/v1/groups/billing/members',
        '/*/POST/v1/groups/billing/members/*/heartbeat',
        '/*/DELETE/v1/groups/billing/members/*',
        '/*/POST/v1/groups/billing/offsets',
        '/*/GET/v1/groups/billing/offsets',
      ].sort(),
    );
  });

  it('group administration is its own grant, not part of grantConsume', () => {
    const consume = routeArns(roleIds.ConsumerAll);
    for (const admin of ['/*/POST/v1/groups/*/offsets/reset', '/*/DELETE/v1/groups/*', '/*/GET/v1/groups', '/*/GET/v1/groups/*']) {
      expect(consume).not.toContain(admin);
    }
    expect(routeArns(roleIds.GroupAdminBilling).sort()).toEqual(
      [
        '/*/POST/v1/groups/billing/offsets/reset',
        '/*/DELETE/v1/groups/billing',
        '/*/DELETE/v1/groups/billing/members/*',
        '/*/GET/v1/groups/billing',
        '/*/GET/v1/groups/billing/offsets',
        '/*/GET/v1/groups',
      ].sort(),
    );
    expect(routeArns(roleIds.GroupAdminAll)).toContain('/*/POST/v1/groups/*/offsets/reset');
  });

  it('grantAdmin covers the topic and subscription routes; scoped, describe, configs, alter, grow and delete name the topic', () => {
    const subscriptions = ['/*/POST/v1/subscriptions', '/*/GET/v1/subscriptions', '/*/GET/v1/subscriptions/*', '/*/DELETE/v1/subscriptions/*'];
    expect(routeArns(roleIds.AdminAll).sort()).toEqual(
      [
        '/*/DELETE/v1/topics/*',
        '/*/GET/v1/topics',
        '/*/GET/v1/topics/*/configs',
        '/*/PATCH/v1/topics/*',
        '/*/POST/v1/topics',
        '/*/POST/v1/topics/*/partitions',
        ...subscriptions,
      ].sort(),
    );
    expect(routeArns(roleIds.AdminOrders).sort()).toEqual(
      [
        '/*/DELETE/v1/topics/orders',
        '/*/GET/v1/topics',
        '/*/GET/v1/topics/orders',
        '/*/GET/v1/topics/orders/configs',
        '/*/PATCH/v1/topics/orders',
        '/*/POST/v1/topics',
        '/*/POST/v1/topics/orders/partitions',
        ...subscriptions,
      ].sort(),
    );
  });

  it('adds lambda:InvokeFunction only when directInvoke is asked for', () => {
    for (const name of Object.keys(GRANTEES).filter((n) => n !== 'ProducerInvoker')) expect(invokedFunctions(roleIds[name]), name).toBeUndefined();
    // Not the admin function, though the grant describes topics: invoking it could delete any topic.
    expect(invokedFunctions(roleIds.ProducerInvoker)).toEqual([fnIds.produce]);
  });

  it('refuses names that cannot appear in a route ARN as given', () => {
    const log = new SluiceLog(new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Names'), 'Log');
    const role = new iam.Role(log, 'R', { assumedBy: new iam.AccountRootPrincipal() });
    expect(() => log.grantProduce(role, { topics: ['a/b'] })).toThrow(/not a valid topic name/);
    expect(() => log.grantConsume(role, { groups: ['*'] })).toThrow(/\[a-zA-Z0-9._-\]/);
    expect(() => log.grantConsume(role, { topics: [] })).toThrow(/empty list/);
  });

  it('encrypts bucket and table with the given key, lets readers only decrypt, and notifies the alarm topic', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          Match.objectLike({ BucketKeyEnabled: true, ServerSideEncryptionByDefault: Match.objectLike({ SSEAlgorithm: 'aws:kms' }) }),
        ],
      },
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: Match.objectLike({ SSEEnabled: true, SSEType: 'KMS' }) });
    const fetchKms = roleActions(template, roleOfFunction(template, fnIds.fetch)).filter((a) => a.startsWith('kms:'));
    expect(fetchKms.sort()).toEqual(['kms:Decrypt', 'kms:DescribeKey']);
    const produceKms = roleActions(template, roleOfFunction(template, fnIds.produce)).filter((a) => a.startsWith('kms:'));
    expect(produceKms).toContain('kms:GenerateDataKey');
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^Alarms/) }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: expect.stringMatching(/^Alarms/) }]);
    }
    // The grantee roles are the caller's: their route ARNs necessarily carry `*` for path parameters.
    expect(nagErrors.filter((e) => e.includes('/SluiceGrants/Log/'))).toEqual([]);
  });

  it('rejects invalid props with a precise message', () => {
    const stack = new Stack(new App(), 'Invalid');
    expect(() => new SluiceLog(stack, 'Bad', { leaseDuration: Duration.seconds(30), graceDuration: Duration.seconds(10) })).toThrow(
      /graceDuration \(10 seconds\) must be longer than leaseDuration \(30 seconds\)/,
    );
    expect(() => new SluiceLog(stack, 'Mem', { memorySize: { fetch: 64 } })).toThrow(/memorySize.fetch must be an integer 128-10240 MB, got 64/);
    expect(() => new SluiceLog(stack, 'Rc', { reservedConcurrency: { fetch: 0 } })).toThrow(/reservedConcurrency.fetch must be a positive integer or 'none'/);
    expect(() => new SluiceLog(stack, 'Rt', { routeThrottle: { 'GET /nope': { rateLimit: 1, burstLimit: 1 } } })).toThrow(/'GET \/nope' is not a route/);
  });
});
