// Template assertions on the Kafka gateway without a load balancer (`loadBalancer: false`): no
// ELBv2 resources, the tasks registered in a Cloud Map private DNS namespace (A records, short
// TTL), the TLS certificate and key injected from one Secrets Manager secret that only the
// execution role may read, clients admitted by the tasks' own security group, a dashboard without
// load balancer metrics, the validation of both modes' props, and cdk-nag clean.
import { beforeAll, describe, expect, it } from 'vitest';
import { Duration, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as servicediscovery from 'aws-cdk-lib/aws-servicediscovery';
import { SluiceLog } from '../../infra/sluice-log.js';
import { SluiceStack } from '../../infra/sluice-stack.js';
import { gatewayHealthCheckScript, type KafkaGatewayProps, type SluiceKafkaGateway } from '../../infra/sluice-kafka-gateway.js';
import { roleActions, synthesize } from './synth.js';
import { SMALLEST_GATEWAY_PROPS } from '../../bench/kafka-gateway.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:sluice-kafka-tls-AbCdEf';
const OTHER_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:unrelated-GhIjKl';
const CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:111122223333:certificate/0a1b2c3d-0000-1111-2222-333344445555';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** A stack holding one SluiceLog whose gateway runs without a load balancer, with the TLS secret imported by its complete ARN. */
function synthDirect(gateway: (stack: Stack) => Partial<KafkaGatewayProps> = () => ({}), after?: (gateway: SluiceKafkaGateway, stack: Stack) => void) {
  return synthesize((app) => {
    const stack = new Stack(app, 'SluiceKafkaDirect');
    const tlsCertificate = secretsmanager.Secret.fromSecretCompleteArn(stack, 'TlsSecret', SECRET_ARN);
    const log = new SluiceLog(stack, 'Log', { kafkaGateway: { loadBalancer: false, tlsCertificate, ...gateway(stack) } });
    after?.(log.kafkaGateway!, stack);
    return stack;
  });
}

function container(t: Template): Record<string, any> {
  return Object.values(t.findResources('AWS::ECS::TaskDefinition') as Resources)[0].Properties.ContainerDefinitions[0];
}

function environment(t: Template): Record<string, unknown> {
  return Object.fromEntries((container(t).Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]));
}

/** Statements of the inline policies attached to the role with this logical id. */
function statementsOf(t: Template, roleId: string): any[] {
  return Object.values(t.findResources('AWS::IAM::Policy') as Resources)
    .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

let template: Template;
let nagErrors: string[];
let gateway: SluiceKafkaGateway;

beforeAll(() => {
  ({ template, nagErrors } = synthDirect(undefined, (g) => {
    gateway = g;
  }));
});

describe('kafkaGateway with loadBalancer: false', () => {
  it('creates no load balancer, listener or target group', () => {
    for (const type of ['LoadBalancer', 'Listener', 'TargetGroup', 'ListenerCertificate']) {
      template.resourceCountIs(`AWS::ElasticLoadBalancingV2::${type}`, 0);
    }
    expect(gateway.loadBalancer).toBeUndefined();
    expect(gateway.listener).toBeUndefined();
    expect(gateway.targetGroup).toBeUndefined();
    // ECS accepts a health check grace period only with a load balancer.
    const service = Object.values(template.findResources('AWS::ECS::Service') as Resources)[0].Properties;
    expect(service.LoadBalancers).toBeUndefined();
    expect(service.HealthCheckGracePeriodSeconds).toBeUndefined();
  });

  it('registers the tasks in Cloud Map: a private DNS namespace in the VPC, A records with a 10 s TTL, health from ECS', () => {
    const vpcId = Object.keys(template.findResources('AWS::EC2::VPC'))[0];
    template.resourceCountIs('AWS::ServiceDiscovery::PrivateDnsNamespace', 1);
    template.hasResourceProperties('AWS::ServiceDiscovery::PrivateDnsNamespace', { Name: 'sluice.internal', Vpc: { Ref: vpcId } });
    const namespaceId = Object.keys(template.findResources('AWS::ServiceDiscovery::PrivateDnsNamespace'))[0];
    template.resourceCountIs('AWS::ServiceDiscovery::Service', 1);
    template.hasResourceProperties('AWS::ServiceDiscovery::Service', {
      Name: 'kafka',
      NamespaceId: { 'Fn::GetAtt': [namespaceId, 'Id'] },
      DnsConfig: { DnsRecords: [{ Type: 'A', TTL: 10 }], RoutingPolicy: 'MULTIVALUE', NamespaceId: { 'Fn::GetAtt': [namespaceId, 'Id'] } },
      HealthCheckCustomConfig: { FailureThreshold: 1 },
    });
    const cloudMapServiceId = Object.keys(template.findResources('AWS::ServiceDiscovery::Service'))[0];
    template.hasResourceProperties('AWS::ECS::Service', { ServiceRegistries: [{ RegistryArn: { 'Fn::GetAtt': [cloudMapServiceId, 'Arn'] } }] });
    expect(gateway.cloudMapNamespace?.namespaceName).toBe('sluice.internal');
    expect(gateway.cloudMapService).toBeDefined();
  });

  it('advertises the Cloud Map name and gives the container the secret\'s certificate and key as KAFKA_TLS_CERT / KAFKA_TLS_KEY', () => {
    expect(gateway.advertisedHost).toBe('kafka.sluice.internal');
    expect(environment(template)).toMatchObject({
      KAFKA_ADVERTISED_HOST: 'kafka.sluice.internal',
      KAFKA_ADVERTISED_PORT: '9092',
      KAFKA_PORT: '9092',
      SLUICE_KAFKA_AUTH: 'iam',
      SLUICE_KAFKA_CONNECTIONS_MAX_IDLE_MS: '300000',
    });
    const c = container(template);
    expect(c.Secrets).toEqual([
      { Name: 'KAFKA_TLS_CERT', ValueFrom: `${SECRET_ARN}:certificate::` },
      { Name: 'KAFKA_TLS_KEY', ValueFrom: `${SECRET_ARN}:privateKey::` },
    ]);
    // The PEM contents are never in the environment.
    expect(Object.keys(environment(template)).filter((name) => name.startsWith('KAFKA_TLS'))).toEqual([]);
    expect(c.HealthCheck.Command).toEqual(['CMD', 'node', '-e', gatewayHealthCheckScript(9092, true)]);
  });

  it('lets the execution role read that one secret, and the task role no secret at all', () => {
    const taskDefinition = Object.values(template.findResources('AWS::ECS::TaskDefinition') as Resources)[0].Properties;
    const executionRoleId = taskDefinition.ExecutionRoleArn['Fn::GetAtt'][0];
    const taskRoleId = taskDefinition.TaskRoleArn['Fn::GetAtt'][0];
    const secretStatements = statementsOf(template, executionRoleId).filter((s) => [s.Action].flat().some((a: string) => a.startsWith('secretsmanager:')));
    expect(secretStatements).toEqual([
      { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], Resource: SECRET_ARN },
    ]);
    expect(roleActions(template, taskRoleId).filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
    // No other role of the stack may read it.
    const readers = Object.values(template.findResources('AWS::IAM::Policy') as Resources).filter((p) =>
      p.Properties.PolicyDocument.Statement.some((s: any) => [s.Resource].flat().includes(SECRET_ARN)),
    );
    expect(readers.flatMap((p) => p.Properties.Roles)).toEqual([{ Ref: executionRoleId }]);
  });

  it('admits the client peers (by default the VPC CIDR) on the Kafka port at the tasks\' own security group, and allowClientsFrom adds more', () => {
    const { template: t } = synthDirect(undefined, (g) => g.allowClientsFrom(ec2.Peer.ipv4('192.168.0.0/16')));
    const vpcId = Object.keys(t.findResources('AWS::EC2::VPC'))[0];
    const services = Object.values(t.findResources('AWS::ECS::Service') as Resources);
    const [serviceGroup] = services[0].Properties.NetworkConfiguration.AwsvpcConfiguration.SecurityGroups;
    const group = (t.findResources('AWS::EC2::SecurityGroup') as Resources)[serviceGroup['Fn::GetAtt'][0]].Properties;
    expect(group.SecurityGroupIngress).toEqual([
      expect.objectContaining({ CidrIp: { 'Fn::GetAtt': [vpcId, 'CidrBlock'] }, FromPort: 9092, ToPort: 9092, IpProtocol: 'tcp' }),
      expect.objectContaining({ CidrIp: '192.168.0.0/16', FromPort: 9092, ToPort: 9092, IpProtocol: 'tcp' }),
    ]);
    // Nothing else reaches the tasks: no security-group-to-security-group rule, nothing open to the internet.
    t.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
    const open = Object.values(t.findResources('AWS::EC2::SecurityGroup') as Resources)
      .flatMap((g) => g.Properties.SecurityGroupIngress ?? [])
      .filter((rule: any) => rule.CidrIp === '0.0.0.0/0');
    expect(open).toEqual([]);
  });

  it('shows the running tasks and their network bytes instead of load balancer metrics, and alarms when fewer than minCapacity run', () => {
    const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard') as Resources)[0].Properties.DashboardBody);
    for (const text of ['Kafka requests by API', 'KafkaConnections', 'KafkaProduceWindowRequests', 'KafkaTlsHandshakeErrors', 'Kafka gateway CPU / memory (%)', 'Kafka gateway tasks (running / desired)', 'RunningTaskCount', 'NetworkRxBytes']) {
      expect(body).toContain(text);
    }
    for (const text of ['AWS/NetworkELB', 'ActiveFlowCount', 'HealthyHostCount', 'Kafka resets']) expect(body).not.toContain(text);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm') as Resources).map((a) => a.Properties);
    expect(alarms.some((a) => a.Namespace === 'AWS/NetworkELB')).toBe(false);
    const missing = alarms.find((a) => (a.AlarmDescription as string).startsWith('Sluice Kafka gateway runs fewer tasks'));
    expect(missing).toBeDefined();
    expect(missing!.Threshold).toBe(1);
    expect(missing!.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    const [expression, running] = missing!.Metrics;
    expect(expression.Expression).toBe('2 - running');
    expect(running.MetricStat.Metric).toMatchObject({ Namespace: 'ECS/ContainerInsights', MetricName: 'RunningTaskCount' });
    expect(running.MetricStat.Stat).toBe('Minimum');
  });

  it('passes cdk-nag (AwsSolutions) without unsuppressed errors', () => {
    expect(nagErrors).toEqual([]);
  });
});

describe('kafkaGateway without a load balancer: props', () => {
  it('registers in a namespace and under a name the user gives, advertising <name>.<namespace>', () => {
    let given: servicediscovery.PrivateDnsNamespace | undefined;
    const { template: t, nagErrors: errors } = synthDirect((stack) => {
      const vpc = new ec2.Vpc(stack, 'Network', { maxAzs: 2, natGateways: 1 });
      vpc.addFlowLog('Flows', { trafficType: ec2.FlowLogTrafficType.REJECT });
      given = new servicediscovery.PrivateDnsNamespace(stack, 'Brokers', { name: 'internal.example.com', vpc });
      return { vpc, serviceDiscovery: { namespace: given, name: 'brokers' }, minCapacity: 3, maxCapacity: 6 };
    });
    t.resourceCountIs('AWS::ServiceDiscovery::PrivateDnsNamespace', 1);
    t.hasResourceProperties('AWS::ServiceDiscovery::PrivateDnsNamespace', { Name: 'internal.example.com' });
    t.hasResourceProperties('AWS::ServiceDiscovery::Service', { Name: 'brokers' });
    expect(environment(t).KAFKA_ADVERTISED_HOST).toBe('brokers.internal.example.com');
    t.hasResourceProperties('AWS::ECS::Service', { DesiredCount: 3 });
    const alarm = Object.values(t.findResources('AWS::CloudWatch::Alarm') as Resources).find((a) =>
      (a.Properties.AlarmDescription as string).startsWith('Sluice Kafka gateway runs fewer tasks'),
    );
    expect(alarm!.Properties.Metrics[0].Expression).toBe('3 - running');
    expect(errors).toEqual([]);
  });

  it('takes an advertised host of the user\'s (a name pointing at the Cloud Map records) and a secret imported by name', () => {
    const { template: t, nagErrors: errors } = synthesize((app) => {
      const stack = new Stack(app, 'SluiceKafkaDirectNamed');
      const tlsCertificate = secretsmanager.Secret.fromSecretNameV2(stack, 'TlsSecret', 'sluice-kafka-tls');
      new SluiceLog(stack, 'Log', { namePrefix: 'Orders', kafkaGateway: { loadBalancer: false, tlsCertificate, advertisedHost: 'kafka.example.com' } });
      return stack;
    });
    expect(environment(t).KAFKA_ADVERTISED_HOST).toBe('kafka.example.com');
    t.hasResourceProperties('AWS::ServiceDiscovery::PrivateDnsNamespace', { Name: 'orders.internal' });
    const secrets = container(t).Secrets as { Name: string; ValueFrom: any }[];
    expect(secrets.map((s) => s.Name)).toEqual(['KAFKA_TLS_CERT', 'KAFKA_TLS_KEY']);
    expect(JSON.stringify(secrets[0].ValueFrom)).toContain(':secret:sluice-kafka-tls:certificate::');
    expect(errors).toEqual([]);
  });

  it('SluiceStack outputs the Cloud Map bootstrap servers and no load balancer name', () => {
    const { template: t } = synthesize(
      (app) =>
        new SluiceStack(app, 'SluiceDirectStack', {
          log: (stack) => ({ kafkaGateway: { loadBalancer: false, tlsCertificate: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Tls', SECRET_ARN) } }),
        }),
    );
    t.hasOutput('KafkaBootstrapServers', { Value: 'kafka.sluice.internal:9092' });
    expect(Object.keys(t.findOutputs('KafkaLoadBalancerDnsName'))).toEqual([]);
  });

  it('deploys the bench\'s cheapest configuration: one 0.25 vCPU task, autoscaling pinned to it, a 5 s linger', () => {
    const { template: t, nagErrors: errors } = synthDirect(() => ({ ...SMALLEST_GATEWAY_PROPS, linger: Duration.seconds(5) }));
    const taskDefinition = Object.values(t.findResources('AWS::ECS::TaskDefinition') as Resources)[0].Properties;
    expect(taskDefinition).toMatchObject({ Cpu: '256', Memory: '512' });
    expect(Object.values(t.findResources('AWS::ECS::Service') as Resources)[0].Properties.DesiredCount).toBe(1);
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 1, MaxCapacity: 1 });
    expect(environment(t).SLUICE_KAFKA_LINGER_MS).toBe('5000');
    expect(errors).toEqual([]);
  });

  it('refuses each wrong combination of the two modes\' props, naming the prop', () => {
    const tls = (stack: Stack) => secretsmanager.Secret.fromSecretCompleteArn(stack, 'Tls', OTHER_SECRET_ARN);
    const acmCert = (stack: Stack) => acm.Certificate.fromCertificateArn(stack, 'Cert', CERTIFICATE_ARN);
    const attempt = (props: (stack: Stack) => KafkaGatewayProps) => () =>
      synthesize((app) => {
        const stack = new Stack(app, 'SluiceKafkaInvalid');
        new SluiceLog(stack, 'Log', { kafkaGateway: props(stack) });
        return stack;
      });
    // With a load balancer (the default).
    expect(attempt(() => ({}))).toThrow(/kafkaGateway .*: certificate is required with a load balancer \(loadBalancer: true, the default\)/);
    expect(attempt((s) => ({ tlsCertificate: tls(s) }))).toThrow(/certificate is required with a load balancer/);
    expect(attempt((s) => ({ certificate: acmCert(s), tlsCertificate: tls(s) }))).toThrow(/tlsCertificate needs loadBalancer: false/);
    expect(attempt((s) => ({ certificate: acmCert(s), serviceDiscovery: { name: 'kafka' } }))).toThrow(/serviceDiscovery needs loadBalancer: false/);
    // Without one.
    expect(attempt(() => ({ loadBalancer: false }))).toThrow(/tlsCertificate is required with loadBalancer: false: a Secrets Manager secret whose JSON has the PEM fields certificate and privateKey/);
    expect(attempt((s) => ({ loadBalancer: false, certificate: acmCert(s) }))).toThrow(/tlsCertificate is required with loadBalancer: false/);
    expect(attempt((s) => ({ loadBalancer: false, tlsCertificate: tls(s), certificate: acmCert(s) }))).toThrow(/certificate needs a load balancer; with loadBalancer: false give the tasks tlsCertificate/);
    expect(attempt((s) => ({ loadBalancer: false, tlsCertificate: tls(s), internetFacing: true }))).toThrow(/internetFacing needs a load balancer/);
    expect(attempt((s) => ({ loadBalancer: false, tlsCertificate: tls(s), deregistrationDelay: Duration.seconds(10) }))).toThrow(/deregistrationDelay needs a load balancer/);
    expect(attempt((s) => ({ loadBalancer: false, tlsCertificate: tls(s), serviceDiscovery: { name: 'kafka_brokers' } }))).toThrow(/serviceDiscovery.name must be a DNS label .* got 'kafka_brokers'/);
    expect(() =>
      synthesize((app) => {
        const stack = new Stack(app, 'SluiceKafkaBadPrefix');
        new SluiceLog(stack, 'Log', { namePrefix: 'orders_eu', kafkaGateway: { loadBalancer: false, tlsCertificate: tls(stack) } });
        return stack;
      }),
    ).toThrow(/the default Cloud Map namespace 'orders_eu.internal' \(from namePrefix\) is no DNS name: pass serviceDiscovery.namespace/);
  });
});
