// The Kafka gateway in AWS: lib/kafka/main.ts in a container on ECS Fargate, so unchanged Kafka
// clients reach the log over TLS with IAM authentication. Two deployments:
//
// With a load balancer (`loadBalancer: true`, the default):
//   clients ──TLS:9092──▶ NLB (TLS listener, ACM certificate) ──TCP:9092──▶ Fargate tasks (private subnets)
//
// Without one (`loadBalancer: false`), as WarpStream's agents are deployed:
//   clients ──DNS──▶ Cloud Map name (A records of the healthy tasks, TTL 10 s)
//   clients ──TLS:9092──▶ a Fargate task, which terminates TLS itself (certificate and key from Secrets Manager)
//
//   both: tasks ──▶ DynamoDB, S3 (gateway endpoints); STS (GetCallerIdentity, via NAT)
//
// Every task is stateless and serves every partition: Metadata names `advertisedHost` (the load
// balancer's name, or the Cloud Map name every task shares) as the leader of all partitions, so a
// client's connections reach whichever task the load balancer or DNS picks, and any task can answer.
// Without the load balancer there is no hourly charge of its own and no per-GB NLCU charge, which
// dominate the cost at low throughput; what is lost is the load balancer's per-connection balancing
// (DNS round robin spreads clients, not one client's connections) and its TLS offload. Neither mode
// routes zone-aware yet: a client reaching a task in another availability zone pays cross-AZ data
// transfer both ways (with the NLB, cross-zone load balancing is on for the same reason: any task).
//
// The image is the gateway bundled at synth time by the local esbuild (as the Lambda bundles are,
// plus the AWS SDK, which no container provides) and the repository's Dockerfile; `cdk deploy`
// builds it with Docker or Finch (CDK_DOCKER=finch).
//
// The task role holds what the gateway's requests need: the union of the produce, fetch, admin and
// groups functions' access (function-permissions.ts), since the gateway serves all of them; not
// retention's, which stays with the scheduled function. Verifying IAM tokens needs no permission:
// the gateway forwards the client's own signed GetCallerIdentity request.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { buildSync } from 'esbuild';
import { Duration, Lazy, type RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as servicediscovery from 'aws-cdk-lib/aws-servicediscovery';
import { Construct } from 'constructs';
import { FUNCTION_ACCESS, type DataResources } from './function-permissions.js';
import { BUNDLE_OPTIONS, REPO_ROOT } from './sluice-functions.js';
import { addKafkaGatewayNagSuppressions } from './nag-suppressions.js';

/** Where the tasks register without a load balancer (`loadBalancer: false`). */
export interface KafkaGatewayServiceDiscovery {
  /**
   * The AWS Cloud Map private DNS namespace the tasks register in; it must belong to the gateway's VPC.
   * @default - a new private DNS namespace named `<namePrefix>.internal` (lower case) in the VPC
   */
  readonly namespace?: servicediscovery.IPrivateDnsNamespace;
  /**
   * The Cloud Map service's name: the tasks' A records are `<name>.<namespace>`.
   * @default 'kafka'
   */
  readonly name?: string;
}

export interface KafkaGatewayProps {
  /**
   * Whether clients reach the tasks through a Network Load Balancer with a TLS listener (`true`),
   * or directly (`false`): the tasks register in AWS Cloud Map (A records of the healthy tasks,
   * TTL 10 s) and terminate TLS themselves with `tlsCertificate`. Without the load balancer its
   * hourly charge and per-GB NLCU charge are gone, which dominate the cost at low throughput;
   * clients then bootstrap from the Cloud Map name and DNS round robin spreads their connections
   * over the tasks (each connection goes to the task its lookup returned first, and stays there).
   * @default true
   */
  readonly loadBalancer?: boolean;
  /**
   * Certificate of the load balancer's TLS listener: an ACM certificate (`acm.Certificate`,
   * `acm.Certificate.fromCertificateArn`) or `elbv2.ListenerCertificate.fromArn(arn)`. It must
   * cover the host name clients connect to: `advertisedHost`, a domain of yours pointing (CNAME or
   * alias) at the load balancer. Required with `loadBalancer: true`, refused without.
   * @default - none: required when `loadBalancer` is true
   */
  readonly certificate?: elbv2.IListenerCertificate;
  /**
   * The tasks' own TLS certificate and key, with `loadBalancer: false`: a Secrets Manager secret
   * whose JSON has the PEM fields `certificate` (the certificate, then any intermediates) and
   * `privateKey`. ECS injects them into the container (`KAFKA_TLS_CERT`, `KAFKA_TLS_KEY`); the task
   * execution role may read this secret and no other. The certificate must cover `advertisedHost`
   * (by default the Cloud Map name, e.g. `kafka.sluice.internal`): from a private CA, whose
   * certificate clients then need to trust, or an ACM exportable certificate for a domain of yours
   * (name the namespace after it). Required with `loadBalancer: false`, refused with a load balancer.
   * @default - none: required when `loadBalancer` is false
   */
  readonly tlsCertificate?: secretsmanager.ISecret;
  /**
   * The Cloud Map namespace and service name the tasks register under, with `loadBalancer: false`.
   * @default - a namespace `<namePrefix>.internal` and the name 'kafka': `kafka.<namePrefix>.internal`
   */
  readonly serviceDiscovery?: KafkaGatewayServiceDiscovery;
  /**
   * The host name clients bootstrap from, which Metadata advertises as every partition's leader and
   * IAM tokens are bound to (their `gatewayId`). The TLS certificate (`certificate` or
   * `tlsCertificate`) must cover it.
   * @default - with a load balancer, its DNS name (clients then connect to a name no ACM certificate
   * can cover, so they must skip host name verification: set this in production); without one, the
   * Cloud Map name `<serviceDiscovery.name>.<namespace>` (`kafka.<namePrefix>.internal`)
   */
  readonly advertisedHost?: string;
  /**
   * The VPC of the tasks (and the load balancer).
   * @default - a new VPC: 2 availability zones, 1 NAT gateway (the tasks reach STS and ECR through
   * it), S3 and DynamoDB gateway endpoints, flow logs of rejected traffic
   */
  readonly vpc?: ec2.IVpc;
  /**
   * Whether the load balancer has a public address. Clients outside the VPC also need `clientPeers`.
   * Only with a load balancer: the tasks themselves never get a public address.
   * @default false
   */
  readonly internetFacing?: boolean;
  /**
   * Who may open connections to the listener (with a load balancer) or to the tasks (without).
   * @default - the VPC's IPv4 CIDR
   */
  readonly clientPeers?: readonly ec2.IPeer[];
  /**
   * Listener and container port.
   * @default 9092
   */
  readonly port?: number;
  /**
   * How clients authenticate: 'iam' is SASL/OAUTHBEARER carrying a presigned STS
   * GetCallerIdentity request (lib/client/iam-oauthbearer.ts makes them); 'none' admits anyone who
   * can reach the listener, so only with `clientPeers` you trust.
   * @default 'iam'
   */
  readonly authentication?: 'iam' | 'none';
  /**
   * IAM principals admitted, with 'iam': 12-digit account ids, role ARNs (any of their sessions),
   * or exact user / session ARNs. `allowConnect()` adds more.
   * @default - the principals of the account the stack is deployed in
   */
  readonly allowedPrincipals?: readonly string[];
  /**
   * How long the gateway collects produce requests of all its connections into one intake object.
   * @default Duration.millis(25)
   */
  readonly linger?: Duration;
  /**
   * Tasks at deployment.
   * @default 2
   */
  readonly desiredCount?: number;
  /**
   * Fewest tasks autoscaling keeps.
   * @default 2
   */
  readonly minCapacity?: number;
  /**
   * Most tasks autoscaling starts.
   * @default 10
   */
  readonly maxCapacity?: number;
  /**
   * Average CPU utilization autoscaling aims at.
   * @default 60
   */
  readonly targetCpuUtilizationPercent?: number;
  /**
   * CPU units per task (1024 = one vCPU).
   * @default 1024
   */
  readonly cpu?: number;
  /**
   * Memory per task.
   * @default 2048
   */
  readonly memoryLimitMiB?: number;
  /**
   * How long the load balancer keeps a stopping task's connections before ECS stops it. Only with a
   * load balancer: without one ECS removes a stopping task's A record from Cloud Map, then sends
   * SIGTERM, and the gateway finishes its in-flight requests before closing its connections.
   * @default Duration.seconds(30)
   */
  readonly deregistrationDelay?: Duration;
}

export interface SluiceKafkaGatewayProps extends KafkaGatewayProps {
  readonly data: DataResources;
  /** The SLUICE_* settings every process of the log shares. */
  readonly environment: Readonly<Record<string, string>>;
  readonly namePrefix: string;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export const KAFKA_GATEWAY_DEFAULTS = {
  port: 9092,
  desiredCount: 2,
  minCapacity: 2,
  maxCapacity: 10,
  targetCpuUtilizationPercent: 60,
  cpu: 1024,
  memoryLimitMiB: 2048,
  lingerMs: 25,
} as const;

/** The container's name in the task definition. */
export const GATEWAY_CONTAINER = 'gateway';

/**
 * Kafka's connections.max.idle.ms for the gateway: below 350 s, so the gateway closes an idle
 * connection itself before a middlebox silently drops the flow (a dropped flow leaves the client
 * waiting for its request timeout instead of reconnecting at once). With the load balancer that
 * is the NLB's fixed 350 s idle timeout of TLS flows. Without it the same value stays: the tasks'
 * security group tracks connections, which on Nitro v6 hosts forgets an idle established flow after
 * 350 s, and clients elsewhere may come through a NAT gateway or Network Firewall, whose default
 * TCP idle timeouts are 350 s too; an idle client closed a little early only reconnects (and redoes
 * its TLS handshake) when it next sends.
 */
const CONNECTIONS_MAX_IDLE_MS = 300_000;

/** Cloud Map's A records live this long in resolvers: a stopped task is out of DNS answers within it. */
const DNS_TTL = Duration.seconds(10);

/** The Cloud Map service name without a load balancer. */
const DEFAULT_SERVICE_NAME = 'kafka';

/** The data actions of the functions whose requests the gateway serves (function-permissions.ts). */
export function gatewayAccess(): { objectActions: string[]; listBucket: boolean; tableActions: string[] } {
  const served = [FUNCTION_ACCESS.produce, FUNCTION_ACCESS.fetch, FUNCTION_ACCESS.admin, FUNCTION_ACCESS.groups];
  return {
    objectActions: [...new Set(served.flatMap((a) => a.objectActions))].sort(),
    listBucket: served.some((a) => a.listBucket),
    tableActions: [...new Set(served.flatMap((a) => a.tableActions))].sort(),
  };
}

/**
 * The image's build context: the Dockerfile and the gateway bundled into one file by the local
 * esbuild. A stack whose bundling is skipped (`cdk synth --exclusively`, tests) stages a
 * placeholder, as NodejsFunction does.
 */
export function stageGatewayImage(bundle: boolean): string {
  const entry = join(REPO_ROOT, 'lib', 'kafka', 'main.ts');
  let code: string;
  if (bundle) {
    const result = buildSync({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: BUNDLE_OPTIONS.target,
      minify: BUNDLE_OPTIONS.minify,
      mainFields: [...BUNDLE_OPTIONS.mainFields],
      banner: { js: BUNDLE_OPTIONS.banner },
      // The AWS SDK is bundled: no container runtime provides it, unlike Lambda's.
      write: false,
      logLevel: 'error',
    });
    code = result.outputFiles[0].text;
  } else {
    code = '// bundling skipped for this stack\n';
  }
  const dockerfile = join(REPO_ROOT, 'Dockerfile');
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `sluice-kafka-gateway-${hash}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gateway.mjs'), code);
  copyFileSync(dockerfile, join(dir, 'Dockerfile'));
  return dir;
}

/**
 * The container's health check, for `node -e` (node is the only tool in the image): a Kafka
 * ApiVersions v0 request (allowed before SASL) to the gateway's port from inside the container,
 * healthy when its answer carries the request's correlation id, so a task whose event loop no
 * longer serves Kafka leaves the load balancer or Cloud Map. With `tls` it speaks TLS, as clients
 * do: a bare TCP connect would be a failed handshake the gateway logs and counts every 15 s. The
 * certificate is not verified: it names the advertised host, not 127.0.0.1.
 */
export function gatewayHealthCheckScript(port: number, tls: boolean): string {
  // Frame: size 10; header v1: api key 18, version 0, correlation id 7, client id null (-1).
  const request = '0000000a' + '0012' + '0000' + '00000007' + 'ffff';
  const connect = tls
    ? `require('tls').connect({port:${port},host:'127.0.0.1',rejectUnauthorized:false})`
    : `require('net').connect(${port},'127.0.0.1')`;
  return [
    `const s=${connect};`,
    `s.setTimeout(4000,()=>process.exit(1));`,
    `s.on('${tls ? 'secureConnect' : 'connect'}',()=>s.write(Buffer.from('${request}','hex')));`,
    `let b=Buffer.alloc(0);`,
    `s.on('data',d=>{b=Buffer.concat([b,d]);if(b.length>=8)process.exit(b.readInt32BE(4)===7?0:1)});`,
    `s.on('error',()=>process.exit(1));s.on('close',()=>process.exit(1));`,
  ].join('');
}

export class SluiceKafkaGateway extends Construct {
  readonly vpc: ec2.IVpc;
  readonly cluster: ecs.Cluster;
  readonly service: ecs.FargateService;
  readonly taskRole: iam.Role;
  /** The Network Load Balancer; undefined with `loadBalancer: false`. */
  readonly loadBalancer?: elbv2.NetworkLoadBalancer;
  /** The load balancer's TLS listener; undefined with `loadBalancer: false`. */
  readonly listener?: elbv2.NetworkListener;
  /** The tasks' target group; undefined with `loadBalancer: false`. */
  readonly targetGroup?: elbv2.NetworkTargetGroup;
  /** The private DNS namespace the tasks register in; undefined with a load balancer. */
  readonly cloudMapNamespace?: servicediscovery.IPrivateDnsNamespace;
  /** The Cloud Map service holding the tasks' A records; undefined with a load balancer. */
  readonly cloudMapService?: servicediscovery.IService;
  /** The security group clients' connections enter through: the load balancer's, or the tasks' without one. */
  readonly clientSecurityGroup: ec2.SecurityGroup;
  readonly logGroup: logs.LogGroup;
  /** The host name clients bootstrap from (and sign their IAM tokens for). */
  readonly advertisedHost: string;
  readonly port: number;
  /** Fewest tasks autoscaling keeps: fewer running means tasks failed (the dashboard alarms on it). */
  readonly minCapacity: number;
  private readonly allowedPrincipals: string[];
  private readonly authentication: 'iam' | 'none';

  constructor(scope: Construct, id: string, props: SluiceKafkaGatewayProps) {
    super(scope, id);
    const port = props.port ?? KAFKA_GATEWAY_DEFAULTS.port;
    const minCapacity = props.minCapacity ?? KAFKA_GATEWAY_DEFAULTS.minCapacity;
    const maxCapacity = props.maxCapacity ?? KAFKA_GATEWAY_DEFAULTS.maxCapacity;
    const desiredCount = props.desiredCount ?? Math.max(KAFKA_GATEWAY_DEFAULTS.desiredCount, minCapacity);
    const authentication = props.authentication ?? 'iam';
    const lingerMs = props.linger?.toMilliseconds() ?? KAFKA_GATEWAY_DEFAULTS.lingerMs;
    const loadBalanced = props.loadBalancer ?? true;
    const serviceName = props.serviceDiscovery?.name ?? DEFAULT_SERVICE_NAME;
    const defaultNamespaceName = `${props.namePrefix.toLowerCase()}.internal`;
    validate(this, {
      port,
      minCapacity,
      maxCapacity,
      desiredCount,
      authentication,
      allowedPrincipals: props.allowedPrincipals ?? [],
      loadBalanced,
      props,
      serviceName,
      namespaceName: props.serviceDiscovery?.namespace ? undefined : defaultNamespaceName,
    });
    this.port = port;
    this.minCapacity = minCapacity;
    this.authentication = authentication;
    this.allowedPrincipals = authentication === 'iam' ? [...(props.allowedPrincipals ?? [Stack.of(this).account])] : [];

    this.vpc = props.vpc ?? this.createVpc();
    this.cluster = new ecs.Cluster(this, 'Cluster', { vpc: this.vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const clientPeers = props.clientPeers ?? [ec2.Peer.ipv4(this.vpc.vpcCidrBlock)];

    let lbSecurityGroup: ec2.SecurityGroup | undefined;
    if (loadBalanced) {
      lbSecurityGroup = new ec2.SecurityGroup(this, 'LoadBalancerSecurityGroup', {
        vpc: this.vpc,
        description: 'Sluice Kafka gateway load balancer: Kafka clients in, gateway tasks out',
        allowAllOutbound: false,
      });
      this.loadBalancer = new elbv2.NetworkLoadBalancer(this, 'LoadBalancer', {
        vpc: this.vpc,
        internetFacing: props.internetFacing ?? false,
        securityGroups: [lbSecurityGroup],
        crossZoneEnabled: true,
      });
      this.advertisedHost = props.advertisedHost ?? this.loadBalancer.loadBalancerDnsName;
    } else {
      this.cloudMapNamespace =
        props.serviceDiscovery?.namespace ??
        new servicediscovery.PrivateDnsNamespace(this, 'Namespace', {
          name: defaultNamespaceName,
          vpc: this.vpc,
          description: 'Sluice Kafka gateway: the tasks\' A records, which Kafka clients bootstrap from',
        });
      this.advertisedHost = props.advertisedHost ?? `${serviceName}.${this.cloudMapNamespace.namespaceName}`;
    }

    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy });
    this.taskRole = new iam.Role(this, 'TaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: 'Sluice Kafka gateway tasks: least-privilege access to the log\'s bucket and table',
    });
    for (const statement of gatewayStatements(props.data)) this.taskRole.addToPrincipalPolicy(statement);

    const taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: props.cpu ?? KAFKA_GATEWAY_DEFAULTS.cpu,
      memoryLimitMiB: props.memoryLimitMiB ?? KAFKA_GATEWAY_DEFAULTS.memoryLimitMiB,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.ARM64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
      taskRole: this.taskRole,
    });
    const stack = Stack.of(this);
    taskDefinition.addContainer(GATEWAY_CONTAINER, {
      image: ecs.ContainerImage.fromAsset(stageGatewayImage(stack.bundlingRequired), { platform: ecrAssets.Platform.LINUX_ARM64 }),
      essential: true,
      readonlyRootFilesystem: true,
      portMappings: [{ containerPort: port, protocol: ecs.Protocol.TCP }],
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: 'gateway', logGroup: this.logGroup }),
      stopTimeout: Duration.seconds(30),
      healthCheck: {
        // Without a load balancer it also gates the task's A record in Cloud Map.
        command: ['CMD', 'node', '-e', gatewayHealthCheckScript(port, !loadBalanced)],
        interval: Duration.seconds(15),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(15),
      },
      environment: {
        ...props.environment,
        KAFKA_HOST: '0.0.0.0',
        KAFKA_PORT: String(port),
        KAFKA_ADVERTISED_HOST: this.advertisedHost,
        KAFKA_ADVERTISED_PORT: String(port),
        SLUICE_KAFKA_AUTH: authentication,
        SLUICE_KAFKA_ALLOWED_PRINCIPALS: Lazy.string({ produce: () => this.allowedPrincipals.join(',') }),
        SLUICE_KAFKA_LINGER_MS: String(lingerMs),
        SLUICE_KAFKA_CONNECTIONS_MAX_IDLE_MS: String(CONNECTIONS_MAX_IDLE_MS),
        AWS_REGION: stack.region,
        // Connection and authentication logs are INFO; outside Lambda the logger defaults to WARN
        // and metrics are off. The EMF lines reach CloudWatch metrics through the awslogs driver.
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_METRICS_DISABLED: 'false',
      },
      // The PEM contents (lib/kafka/gateway-env.ts), read by the execution role at task start: the
      // secret's value never appears in the template or the task definition.
      secrets: props.tlsCertificate
        ? {
            KAFKA_TLS_CERT: ecs.Secret.fromSecretsManager(props.tlsCertificate, 'certificate'),
            KAFKA_TLS_KEY: ecs.Secret.fromSecretsManager(props.tlsCertificate, 'privateKey'),
          }
        : undefined,
    });

    const serviceSecurityGroup = new ec2.SecurityGroup(this, 'ServiceSecurityGroup', {
      vpc: this.vpc,
      description: loadBalanced ? 'Sluice Kafka gateway tasks: Kafka from the load balancer only' : 'Sluice Kafka gateway tasks: Kafka clients in (TLS)',
      allowAllOutbound: true,
    });
    this.clientSecurityGroup = lbSecurityGroup ?? serviceSecurityGroup;
    for (const peer of clientPeers) this.allowClientsFrom(peer);
    this.service = new ecs.FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition,
      desiredCount,
      securityGroups: [serviceSecurityGroup],
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      assignPublicIp: false,
      circuitBreaker: { rollback: true },
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      // ECS accepts a grace period only for services behind a load balancer; without one the
      // container health check's start period plays its part.
      healthCheckGracePeriod: loadBalanced ? Duration.seconds(60) : undefined,
      cloudMapOptions: this.cloudMapNamespace
        ? {
            cloudMapNamespace: this.cloudMapNamespace,
            name: serviceName,
            dnsRecordType: servicediscovery.DnsRecordType.A,
            dnsTtl: DNS_TTL,
            // ECS reports the container health check's status to Cloud Map: an unhealthy task's
            // record leaves the answers after one 30-second interval.
            failureThreshold: 1,
          }
        : undefined,
    });
    this.cloudMapService = this.service.cloudMapService;

    if (this.loadBalancer && lbSecurityGroup) {
      lbSecurityGroup.connections.allowTo(serviceSecurityGroup, ec2.Port.tcp(port), 'Kafka to the gateway tasks');
      // validate() has checked that a load balancer comes with its certificate.
      this.listener = this.loadBalancer.addListener('Kafka', {
        port,
        protocol: elbv2.Protocol.TLS,
        certificates: [props.certificate!],
        sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
      });
      this.targetGroup = this.listener.addTargets('Gateway', {
        port,
        protocol: elbv2.Protocol.TCP,
        targets: [this.service.loadBalancerTarget({ containerName: GATEWAY_CONTAINER, containerPort: port })],
        deregistrationDelay: props.deregistrationDelay ?? Duration.seconds(30),
        healthCheck: { protocol: elbv2.Protocol.TCP, interval: Duration.seconds(10), healthyThresholdCount: 2, unhealthyThresholdCount: 2 },
      });
    }

    const scaling = this.service.autoScaleTaskCount({ minCapacity, maxCapacity });
    scaling.scaleOnCpuUtilization('Cpu', {
      targetUtilizationPercent: props.targetCpuUtilizationPercent ?? KAFKA_GATEWAY_DEFAULTS.targetCpuUtilizationPercent,
      scaleInCooldown: Duration.minutes(5),
      scaleOutCooldown: Duration.minutes(1),
    });
    addKafkaGatewayNagSuppressions({
      loadBalancer: this.loadBalancer,
      taskDefinition,
      executionRole: taskDefinition.obtainExecutionRole(),
      tlsFromSecret: props.tlsCertificate !== undefined,
    });
  }

  /**
   * Admits `principal` (a role: any of its sessions; a user; or an account id) to the gateway's
   * IAM authentication, beside `allowedPrincipals`. It needs no IAM permission of its own: a token
   * is a GetCallerIdentity request, which every principal may make.
   */
  allowConnect(principal: iam.IRole | iam.IUser | string): void {
    if (this.authentication !== 'iam') throw new Error(`SluiceLog kafkaGateway ${this.node.path}: allowConnect needs authentication 'iam'`);
    const entry = typeof principal === 'string' ? principal : 'roleArn' in principal ? principal.roleArn : principal.userArn;
    if (!isPrincipalEntry(entry)) throw new Error(`SluiceLog kafkaGateway ${this.node.path}: allowConnect: '${entry}' is neither a 12-digit account id nor an IAM or STS ARN`);
    this.allowedPrincipals.push(entry);
  }

  /** Lets `peer` open connections to the listener, or to the tasks without a load balancer (beyond `clientPeers`). */
  allowClientsFrom(peer: ec2.IPeer): void {
    this.clientSecurityGroup.addIngressRule(peer, ec2.Port.tcp(this.port), 'Kafka clients (TLS)');
  }

  private createVpc(): ec2.Vpc {
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      gatewayEndpoints: {
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
      },
    });
    vpc.addFlowLog('RejectedTraffic', { trafficType: ec2.FlowLogTrafficType.REJECT });
    return vpc;
  }
}

/** The task role's statements: gatewayAccess() on the data prefix and table, KMS when the data is encrypted with a key. */
function gatewayStatements(data: DataResources): iam.PolicyStatement[] {
  const access = gatewayAccess();
  const statements = [
    new iam.PolicyStatement({ actions: access.objectActions, resources: [data.bucket.arnForObjects(data.dataPrefix ? `${data.dataPrefix}/*` : '*')] }),
    new iam.PolicyStatement({ actions: access.tableActions, resources: [data.table.tableArn] }),
  ];
  if (access.listBucket) {
    statements.push(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [data.bucket.bucketArn],
        conditions: data.dataPrefix ? { StringLike: { 's3:prefix': [`${data.dataPrefix}/*`] } } : undefined,
      }),
    );
  }
  if (data.encryptionKey) {
    statements.push(
      new iam.PolicyStatement({ actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'], resources: [data.encryptionKey.keyArn] }),
    );
  }
  return statements;
}

function validate(
  scope: Construct,
  p: {
    port: number;
    minCapacity: number;
    maxCapacity: number;
    desiredCount: number;
    authentication: string;
    allowedPrincipals: readonly string[];
    loadBalanced: boolean;
    props: KafkaGatewayProps;
    serviceName: string;
    /** The namespace the construct would create; undefined when one is given. */
    namespaceName: string | undefined;
  },
): void {
  const fail = (message: string): never => {
    throw new Error(`SluiceLog kafkaGateway ${scope.node.path}: ${message}`);
  };
  if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) fail(`port must be 1-65535, got ${p.port}`);
  if (!Number.isInteger(p.minCapacity) || p.minCapacity < 1) fail(`minCapacity must be a positive integer, got ${p.minCapacity}`);
  if (!Number.isInteger(p.maxCapacity) || p.maxCapacity < p.minCapacity) fail(`maxCapacity (${p.maxCapacity}) must be an integer at least minCapacity (${p.minCapacity})`);
  if (p.desiredCount < p.minCapacity || p.desiredCount > p.maxCapacity) fail(`desiredCount (${p.desiredCount}) must lie between minCapacity and maxCapacity`);
  if (p.authentication !== 'iam' && p.authentication !== 'none') fail(`authentication must be 'iam' or 'none', got '${p.authentication}'`);
  if (p.authentication === 'none' && p.allowedPrincipals.length > 0) fail("allowedPrincipals needs authentication 'iam'");
  for (const entry of p.allowedPrincipals) {
    if (!isPrincipalEntry(entry)) fail(`allowedPrincipals: '${entry}' is neither a 12-digit account id nor an IAM or STS ARN`);
  }
  const { props } = p;
  if (p.loadBalanced) {
    if (!props.certificate) fail('certificate is required with a load balancer (loadBalancer: true, the default): the ACM certificate of its TLS listener');
    if (props.tlsCertificate) fail('tlsCertificate needs loadBalancer: false; with a load balancer its listener terminates TLS with certificate');
    if (props.serviceDiscovery) fail('serviceDiscovery needs loadBalancer: false; with a load balancer clients reach it, not Cloud Map');
  } else {
    if (!props.tlsCertificate) fail('tlsCertificate is required with loadBalancer: false: a Secrets Manager secret whose JSON has the PEM fields certificate and privateKey, with which each task terminates TLS');
    if (props.certificate) fail('certificate needs a load balancer; with loadBalancer: false give the tasks tlsCertificate (a Secrets Manager secret) instead');
    if (props.internetFacing !== undefined) fail('internetFacing needs a load balancer; with loadBalancer: false the tasks have private addresses only');
    if (props.deregistrationDelay !== undefined) fail("deregistrationDelay needs a load balancer (its target group's); with loadBalancer: false ECS removes a stopping task from Cloud Map before SIGTERM");
    if (!Token.isUnresolved(p.serviceName) && !isDnsLabel(p.serviceName)) fail(`serviceDiscovery.name must be a DNS label (letters, digits, inner hyphens, at most 63), got '${p.serviceName}'`);
    if (p.namespaceName !== undefined && !p.namespaceName.split('.').every(isDnsLabel)) {
      fail(`the default Cloud Map namespace '${p.namespaceName}' (from namePrefix) is no DNS name: pass serviceDiscovery.namespace`);
    }
  }
}

function isDnsLabel(label: string): boolean {
  return /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label);
}

/** An account id or an IAM/STS ARN (lib/kafka/auth/principal-allow-list.ts reads the same forms); tokens resolve at deployment. */
function isPrincipalEntry(entry: string): boolean {
  return Token.isUnresolved(entry) || /^\d{12}$/.test(entry) || /^arn:aws[a-z-]*:(iam|sts)::\d{12}:[\x21-\x7E]+$/.test(entry);
}
