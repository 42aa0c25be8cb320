// CDK app entry (`cdk.json`: "npx tsx infra/app.ts"). Environment-agnostic: no lookups, so
// `npx cdk synth` runs offline. Options come from context, e.g.
// `npx cdk deploy -c namePrefix=sluice-dev -c removalPolicy=destroy`.
import { App, RemovalPolicy } from 'aws-cdk-lib';
import { SluiceStack } from './sluice-stack.js';

const app = new App();
const namePrefix = (app.node.tryGetContext('namePrefix') as string | undefined) ?? 'sluice';
const destroy = app.node.tryGetContext('removalPolicy') === 'destroy';
const removalPolicy = destroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

new SluiceStack(app, (app.node.tryGetContext('stackName') as string | undefined) ?? 'Sluice', {
  description: 'Sluice: Kafka-style partitioned log on S3, DynamoDB and Lambda',
  log: { namePrefix, bucketRemovalPolicy: removalPolicy, tableRemovalPolicy: removalPolicy },
});
