// CDK app entry (`cdk.json`: "npx tsx infra/app.ts"). Environment-agnostic: no lookups, so
// `npx cdk synth` runs offline. Options come from context, e.g.
// `npx cdk deploy -c namePrefix=sluice-dev -c removalPolicy=destroy`.
import { App, RemovalPolicy } from 'aws-cdk-lib';
import { ListenerCertificate } from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { SluiceStack } from './sluice-stack.js';

const app = new App();
const namePrefix = (app.node.tryGetContext('namePrefix') as string | undefined) ?? 'sluice';
const destroy = app.node.tryGetContext('removalPolicy') === 'destroy';
const removalPolicy = destroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

// The Kafka gateway is deployed when a certificate for its listener is given:
//   -c kafkaCertificateArn=arn:aws:acm:… -c kafkaAdvertisedHost=kafka.example.com
//   -c kafkaAllowedPrincipals=123456789012,arn:aws:iam::123456789012:role/Writer
// or, without a load balancer, the complete ARN of the secret holding the tasks' certificate and key:
//   -c kafkaTlsSecretArn=arn:aws:secretsmanager:…:secret:sluice-kafka-tls-AbCdEf
const context = (name: string) => app.node.tryGetContext(name) as string | undefined;
const kafkaCertificateArn = context('kafkaCertificateArn');
const kafkaTlsSecretArn = context('kafkaTlsSecretArn');

new SluiceStack(app, context('stackName') ?? 'Sluice', {
  description: 'Sluice: Kafka-style partitioned log on S3, DynamoDB and Lambda',
  log: (stack) => ({
    namePrefix,
    bucketRemovalPolicy: removalPolicy,
    tableRemovalPolicy: removalPolicy,
    kafkaGateway:
      kafkaCertificateArn || kafkaTlsSecretArn
        ? {
            ...(kafkaTlsSecretArn
              ? { loadBalancer: false, tlsCertificate: Secret.fromSecretCompleteArn(stack, 'KafkaTlsSecret', kafkaTlsSecretArn) }
              : {}),
            certificate: kafkaCertificateArn ? ListenerCertificate.fromArn(kafkaCertificateArn) : undefined,
            advertisedHost: context('kafkaAdvertisedHost'),
            allowedPrincipals: context('kafkaAllowedPrincipals')?.split(',').filter((p) => p !== ''),
          }
        : undefined,
  }),
});
