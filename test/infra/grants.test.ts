// grant*() statements and the customer-managed-key variant, on one synthesized stack that has a
// producer, a consumer and an admin role and a KMS key.
import { beforeAll, describe, expect, it } from 'vitest';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
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

function invokedFunctions(roleId: string): string[] {
  const st = statementsOf(roleId).find((s) => s.Action === 'lambda:InvokeFunction')!;
  return [st.Resource].flat().map((r: any) => r['Fn::GetAtt'][0]);
}

const GRANTS = { Producer: 'grantProduce', Consumer: 'grantConsume', Admin: 'grantAdmin' } as const;

beforeAll(() => {
  ({ template, nagErrors } = synthesize((app) => {
    const stack = new Stack(app, 'SluiceGrants');
    const encryptionKey = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
    const log = new SluiceLog(stack, 'Log', { namePrefix: 'orders', encryptionKey });
    for (const [kind, method] of Object.entries(GRANTS)) {
      const role = new iam.Role(stack, kind, { assumedBy: new iam.AccountRootPrincipal() });
      expect(log[method](role).success).toBe(true);
      roleIds[kind] = stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
    }
    return stack;
  }));
  fnIds = functionIds(template, 'orders');
});

describe('SluiceLog grants', () => {
  it('grantProduce allows exactly the produce routes and invoking the produce function', () => {
    expect(routeArns(roleIds.Producer).sort()).toEqual(['/*/POST/v1/producers', '/*/POST/v1/topics/*/records']);
    expect(invokedFunctions(roleIds.Producer)).toEqual([fnIds.produce]);
  });

  it('grantConsume allows fetch and consumer-group routes, and invoking those two functions', () => {
    const arns = routeArns(roleIds.Consumer);
    expect(arns).toContain('/*/GET/v1/topics/*/partitions/*/records');
    expect(arns).toContain('/*/POST/v1/groups/*/members/*/heartbeat');
    expect(arns.some((a) => a.includes('/POST/v1/topics'))).toBe(false);
    expect(arns).toHaveLength(11);
    expect(invokedFunctions(roleIds.Consumer).sort()).toEqual([fnIds.fetch, fnIds.groups].sort());
  });

  it('grantAdmin allows the topic routes and invoking the admin function only', () => {
    expect(routeArns(roleIds.Admin).sort()).toEqual(
      ['/*/DELETE/v1/topics/*', '/*/GET/v1/topics', '/*/GET/v1/topics/*', '/*/POST/v1/topics', '/*/POST/v1/topics/*/partitions'].sort(),
    );
    expect(invokedFunctions(roleIds.Admin)).toEqual([fnIds.admin]);
  });

  it('encrypts bucket and table with the given key and lets readers only decrypt', () => {
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
    // The grantee roles are the caller's: their route ARNs necessarily carry `*` for path parameters.
    expect(nagErrors.filter((e) => e.includes('/SluiceGrants/Log/'))).toEqual([]);
  });

  it('rejects invalid props with a precise message', () => {
    const stack = new Stack(new App(), 'Invalid');
    expect(() => new SluiceLog(stack, 'Bad', { leaseDuration: Duration.seconds(30), graceDuration: Duration.seconds(10) })).toThrow(
      /graceDuration \(10 seconds\) must be longer than leaseDuration \(30 seconds\)/,
    );
    expect(() => new SluiceLog(stack, 'Mem', { memorySize: { fetch: 64 } })).toThrow(/memorySize.fetch must be an integer 128-10240 MB, got 64/);
  });
});
