// Template assertions on a SluiceStack with the Kafka gateway: Fargate service behind an NLB TLS
// listener, CPU autoscaling, a task role with exactly the data actions the gateway's requests need,
// the container's configuration, the dashboard row, and cdk-nag clean.
import { beforeAll, describe, expect, it } from 'vitest';
import { Duration, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { SluiceLog } from '../../infra/sluice-log.js';
import { SluiceStack } from '../../infra/sluice-stack.js';
import { gatewayHealthCheckScript, type KafkaGatewayProps, type SluiceKafkaGateway } from '../../infra/sluice-kafka-gateway.js';
import * as iam from 'aws-cdk-lib/aws-iam';
import { roleActions, synthesize } from './synth.js';

const CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:111122223333:certificate/0a1b2c3d-0000-1111-2222-333344445555';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

/** A stack holding one SluiceLog whose gateway props may refer to resources of the stack. */
function synthWithGateway(gateway: (stack: Stack) => Partial<KafkaGatewayProps> = () => ({})) {
  return synthesize((app) => {
    const stack = new Stack(app, 'SluiceKafkaTest');
    const certificate = acm.Certificate.fromCertificateArn(stack, 'Certificate', CERTIFICATE_ARN);
    new SluiceLog(stack, 'Log', { kafkaGateway: { certificate, ...gateway(stack) } });
    return stack;
  });
}

let template: Template;
let nagErrors: string[];

beforeAll(() => {
  ({ template, nagErrors } = synthWithGateway());
});

describe('SluiceLog with kafkaGateway', () => {
  it('runs the gateway on Fargate (arm64) with 2 tasks, a deployment circuit breaker and container insights', () => {
    template.hasResourceProperties('AWS::ECS::Service', {
      LaunchType: 'FARGATE',
      DesiredCount: 2,
      DeploymentConfiguration: Match.objectLike({ DeploymentCircuitBreaker: { Enable: true, Rollback: true }, MinimumHealthyPercent: 100 }),
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'DISABLED' }) },
    });
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      Cpu: '1024',
      Memory: '2048',
    });
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] });
  });

  it('puts a TLS listener with the certificate in front of it, forwarding TCP to the tasks\' port 9092', () => {
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Type: 'network', Scheme: 'internal' });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Protocol: 'TLS',
      Port: 9092,
      Certificates: [{ CertificateArn: CERTIFICATE_ARN }],
      SslPolicy: 'ELBSecurityPolicy-TLS13-1-2-2021-06',
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Protocol: 'TCP',
      Port: 9092,
      TargetType: 'ip',
      HealthCheckProtocol: 'TCP',
      TargetGroupAttributes: Match.arrayWith([{ Key: 'deregistration_delay.timeout_seconds', Value: '30' }]),
    });
    // Clients reach the listener from the VPC only, and the tasks only from the load balancer.
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress') as Resources).map((r) => r.Properties);
    expect(ingress.some((r) => r.FromPort === 9092 && r.SourceSecurityGroupId !== undefined)).toBe(true);
    const groups = Object.values(template.findResources('AWS::EC2::SecurityGroup') as Resources).map((r) => r.Properties);
    const open = groups.flatMap((g) => g.SecurityGroupIngress ?? []).filter((rule: any) => rule.CidrIp === '0.0.0.0/0');
    expect(open).toEqual([]);
  });

  it('scales the service on CPU between 2 and 10 tasks', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 2, MaxCapacity: 10, ScalableDimension: 'ecs:service:DesiredCount' });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' },
        TargetValue: 60,
      }),
    });
  });

  it('gives the task role exactly the data actions of the produce, fetch, admin and groups functions, on the data prefix', () => {
    const taskDefinition = Object.values(template.findResources('AWS::ECS::TaskDefinition') as Resources)[0];
    const taskRoleId = taskDefinition.Properties.TaskRoleArn['Fn::GetAtt'][0];
    expect(roleActions(template, taskRoleId).sort()).toEqual(
      [
        's3:DeleteObject',
        's3:GetObject',
        's3:PutObject',
        's3:ListBucket',
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:Scan',
        'dynamodb:UpdateItem',
      ].sort(),
    );
    const statements = Object.values(template.findResources('AWS::IAM::Policy') as Resources)
      .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === taskRoleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    const objects = statements.find((s: any) => [s.Action].flat().includes('s3:PutObject'));
    expect(objects.Resource['Fn::Join'][1][1]).toBe('/log/*');
    const list = statements.find((s: any) => [s.Action].flat().includes('s3:ListBucket'));
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['log/*'] } });
  });

  it('configures the container: advertised host = the load balancer, IAM authentication, linger, logs, health check', () => {
    const taskDefinition = Object.values(template.findResources('AWS::ECS::TaskDefinition') as Resources)[0];
    const [container] = taskDefinition.Properties.ContainerDefinitions;
    const env = Object.fromEntries(container.Environment.map((e: { Name: string; Value: unknown }) => [e.Name, e.Value]));
    const lbId = Object.keys(template.findResources('AWS::ElasticLoadBalancingV2::LoadBalancer'))[0];
    expect(env).toMatchObject({
      KAFKA_HOST: '0.0.0.0',
      KAFKA_PORT: '9092',
      KAFKA_ADVERTISED_HOST: { 'Fn::GetAtt': [lbId, 'DNSName'] },
      KAFKA_ADVERTISED_PORT: '9092',
      SLUICE_KAFKA_AUTH: 'iam',
      SLUICE_KAFKA_ALLOWED_PRINCIPALS: { Ref: 'AWS::AccountId' }, // the deploying account's principals
      SLUICE_KAFKA_LINGER_MS: '25',
      SLUICE_PREFIX: 'log',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_DISABLED: 'false',
    });
    expect(env.SLUICE_BUCKET).toEqual({ Ref: expect.stringMatching(/^LogSegments/) });
    expect(env.SLUICE_TABLE).toEqual({ Ref: expect.stringMatching(/^LogMetadata/) });
    expect(container.ReadonlyRootFilesystem).toBe(true);
    expect(container.LogConfiguration.LogDriver).toBe('awslogs');
    expect(container.HealthCheck.Command).toEqual(['CMD', 'node', '-e', gatewayHealthCheckScript(9092, false)]);
    expect(container.PortMappings).toEqual([{ ContainerPort: 9092, Protocol: 'tcp' }]);
    expect(container.StopTimeout).toBe(30);
    // The load balancer terminates TLS: no certificate reaches the tasks, and they register nowhere else.
    expect(container.Secrets).toBeUndefined();
    template.resourceCountIs('AWS::ServiceDiscovery::Service', 0);
    template.resourceCountIs('AWS::ServiceDiscovery::PrivateDnsNamespace', 0);
  });

  it('creates a VPC with S3 and DynamoDB gateway endpoints and rejected-traffic flow logs', () => {
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    template.resourceCountIs('AWS::EC2::VPCEndpoint', 2);
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
  });

  it('adds the gateway to the dashboard and alarms on unhealthy tasks', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm') as Resources);
    expect(alarms.some((a) => a.Properties.MetricName === 'UnHealthyHostCount' && a.Properties.Namespace === 'AWS/NetworkELB')).toBe(true);
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard') as Resources)[0];
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    expect(body).toContain('Kafka connections (active / new)');
    for (const text of ['Kafka requests by API', 'SEARCH(', 'KafkaRequests', 'KafkaRequestErrors', 'KafkaRequestLatency', 'KafkaConnections', 'KafkaProduceWindows', 'KafkaProduceWindowPartitions', 'KafkaProduceWindowLatency']) expect(body).toContain(text);
  });

  it('passes cdk-nag (AwsSolutions) without unsuppressed errors', () => {
    expect(nagErrors).toEqual([]);
  });
});

describe('kafkaGateway props', () => {
  it('takes a given VPC, client peers, capacity, allow-list and advertised host', () => {
    const custom = synthWithGateway((stack) => ({
      vpc: new ec2.Vpc(stack, 'Network', { maxAzs: 2, natGateways: 1 }),
      certificate: elbv2.ListenerCertificate.fromArn(CERTIFICATE_ARN),
      advertisedHost: 'kafka.example.com',
      minCapacity: 3,
      maxCapacity: 6,
      cpu: 2048,
      memoryLimitMiB: 4096,
      allowedPrincipals: ['111122223333', 'arn:aws:iam::111122223333:role/Writer'],
      linger: Duration.millis(100),
      clientPeers: [ec2.Peer.ipv4('10.1.0.0/16')],
    }));
    custom.template.resourceCountIs('AWS::EC2::VPC', 1);
    custom.template.resourceCountIs('AWS::EC2::FlowLog', 0);
    const env = Object.fromEntries(
      (Object.values(custom.template.findResources('AWS::ECS::TaskDefinition') as Resources)[0].Properties.ContainerDefinitions[0].Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]),
    );
    expect(env).toMatchObject({
      KAFKA_ADVERTISED_HOST: 'kafka.example.com',
      SLUICE_KAFKA_ALLOWED_PRINCIPALS: '111122223333,arn:aws:iam::111122223333:role/Writer',
      SLUICE_KAFKA_LINGER_MS: '100',
    });
    custom.template.hasResourceProperties('AWS::ECS::Service', { DesiredCount: 3 });
    custom.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Certificates: [{ CertificateArn: CERTIFICATE_ARN }] });
    custom.template.hasResourceProperties('AWS::ECS::TaskDefinition', { Cpu: '2048', Memory: '4096' });
    custom.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 3, MaxCapacity: 6 });
    custom.template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      SecurityGroupIngress: [Match.objectLike({ CidrIp: '10.1.0.0/16', FromPort: 9092, ToPort: 9092 })],
    });
  });

  it('admits more principals with allowConnect (roles, users, account ids)', () => {
    let gateway: SluiceKafkaGateway | undefined;
    let writer: iam.Role | undefined;
    const { template: t } = synthesize((app) => {
      const stack = new Stack(app, 'SluiceKafkaAllow');
      const log = new SluiceLog(stack, 'Log', { kafkaGateway: { certificate: elbv2.ListenerCertificate.fromArn(CERTIFICATE_ARN), allowedPrincipals: ['111122223333'] } });
      gateway = log.kafkaGateway!;
      writer = new iam.Role(stack, 'Writer', { assumedBy: new iam.AccountRootPrincipal() });
      gateway.allowConnect(writer);
      gateway.allowConnect('444455556666');
      return stack;
    });
    const env = Object.fromEntries(
      (Object.values(t.findResources('AWS::ECS::TaskDefinition') as Resources)[0].Properties.ContainerDefinitions[0].Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]),
    );
    const writerId = Object.keys(t.findResources('AWS::IAM::Role')).find((id) => id.startsWith('Writer'))!;
    expect(env.SLUICE_KAFKA_ALLOWED_PRINCIPALS).toEqual({ 'Fn::Join': ['', ['111122223333,', { 'Fn::GetAtt': [writerId, 'Arn'] }, ',444455556666']] });
    expect(() => gateway!.allowConnect('Writer')).toThrow(/allowConnect: 'Writer' is neither a 12-digit account id nor an IAM or STS ARN/);
  });

  it('is left out by default; SluiceStack outputs the bootstrap servers when it is on', () => {
    const { template: without } = synthesize((app) => new SluiceStack(app, 'SluiceNoGateway'));
    without.resourceCountIs('AWS::ECS::Service', 0);
    without.resourceCountIs('AWS::ElasticLoadBalancingV2::LoadBalancer', 0);
    const { template: withGateway } = synthesize(
      (app) => new SluiceStack(app, 'SluiceWithGateway', { log: { kafkaGateway: { certificate: elbv2.ListenerCertificate.fromArn(CERTIFICATE_ARN), advertisedHost: 'kafka.example.com' } } }),
    );
    withGateway.hasOutput('KafkaBootstrapServers', { Value: 'kafka.example.com:9092' });
    withGateway.hasOutput('KafkaLoadBalancerDnsName', { Value: { 'Fn::GetAtt': [Match.anyValue(), 'DNSName'] } });
  });

  it('refuses inconsistent settings with precise messages', () => {
    const attempt = (props: Partial<KafkaGatewayProps>) => () => synthWithGateway(() => props);
    expect(attempt({ minCapacity: 5, maxCapacity: 2 })).toThrow(/maxCapacity \(2\) must be an integer at least minCapacity \(5\)/);
    expect(attempt({ desiredCount: 20 })).toThrow(/desiredCount \(20\) must lie between/);
    expect(attempt({ allowedPrincipals: ['Writer'] })).toThrow(/'Writer' is neither a 12-digit account id nor an IAM or STS ARN/);
    expect(attempt({ authentication: 'none', allowedPrincipals: ['111122223333'] })).toThrow(/allowedPrincipals needs authentication 'iam'/);
    expect(attempt({ port: 70000 })).toThrow(/port must be 1-65535/);
  });
});
