// cdk-nag (AwsSolutions) findings that are accepted by design, each with its reason. Scoped to
// the SluiceLog construct and, where the rule allows, to the exact finding (appliesTo).
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';

export function addSluiceNagSuppressions(log: Construct): void {
  NagSuppressions.addResourceSuppressions(
    log,
    [
      {
        id: 'AwsSolutions-S1',
        reason:
          'Segment bucket: every request already goes through Sluice functions whose structured logs and the API access log record caller, topic and partition; S3 server access logs would add a second, unaudited log bucket. Enable CloudTrail S3 data events if object-level audit is required.',
      },
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Segment objects are named <prefix>/<topic>/<partition>/<base offset>-<id>.log and created at run time, so object actions must cover the data prefix; the actions themselves are explicit (no wildcard actions), see infra/function-permissions.ts.',
        appliesTo: [{ regex: '/^Resource::<.*Segments[0-9A-F]+\\.Arn>\\/.*\\*$/g' }],
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'Pinned to nodejs22.x on purpose: the handlers are bundled and tested for the node22 target (esbuild target, bundle-size test); moving to a newer runtime is a deliberate, tested change rather than a drift.',
      },
    ],
    true,
  );
}

/** Findings on the Kafka gateway (infra/sluice-kafka-gateway.ts) accepted by design, each on the resource it concerns. */
export function addKafkaGatewayNagSuppressions(parts: {
  /** Undefined without a load balancer (`loadBalancer: false`). */
  loadBalancer?: Construct;
  taskDefinition: Construct;
  executionRole: Construct;
  /** Whether the tasks' TLS certificate and key come from a Secrets Manager secret (`tlsCertificate`). */
  tlsFromSecret: boolean;
}): void {
  if (parts.loadBalancer) {
    NagSuppressions.addResourceSuppressions(parts.loadBalancer, [
      {
        id: 'AwsSolutions-ELB2',
        reason:
          'Kafka connections are logged by the gateway itself (remote address, client id, authenticated IAM principal) in its log group; NLB access logs would add a second log bucket recording only TLS handshakes.',
      },
    ]);
  }
  NagSuppressions.addResourceSuppressions(parts.taskDefinition, [
    {
      id: 'AwsSolutions-ECS2',
      reason: parts.tlsFromSecret
        ? 'The environment holds configuration only (table and bucket names, data prefix, advertised host, port, linger, allowed principal ARNs); the one secret, the TLS certificate and private key, is injected from Secrets Manager through the container\'s secrets (KAFKA_TLS_CERT, KAFKA_TLS_KEY), and AWS access comes from the task role.'
        : 'The environment holds configuration only (table and bucket names, data prefix, advertised host, port, linger, allowed principal ARNs); the gateway has no secrets: TLS ends at the load balancer and AWS access comes from the task role.',
    },
  ]);
  NagSuppressions.addResourceSuppressions(
    parts.executionRole,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'ecr:GetAuthorizationToken, which the execution role needs to pull the image, has no resource-level permissions: AWS requires Resource "*" for it.',
        appliesTo: ['Resource::*'],
      },
    ],
    true,
  );
}
