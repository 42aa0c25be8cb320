// The deployable stack: one SluiceLog plus the outputs a caller needs (API URL, function names
// for direct invoke, bucket, table). Props pass straight through to the construct.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { SluiceLog, type SluiceLogProps } from './sluice-log.js';
import { SLUICE_FUNCTION_NAMES } from './routes.js';

export interface SluiceStackProps extends StackProps {
  /** The log's props, or a function making them in this stack (for props that are resources of it, e.g. an imported secret). */
  readonly log?: SluiceLogProps | ((stack: Stack) => SluiceLogProps);
}

export class SluiceStack extends Stack {
  readonly log: SluiceLog;

  constructor(scope: Construct, id: string, props: SluiceStackProps = {}) {
    super(scope, id, props);
    this.log = new SluiceLog(this, 'Log', typeof props.log === 'function' ? props.log(this) : props.log);

    new CfnOutput(this, 'ApiUrl', { value: this.log.api.url, description: 'Sluice HTTP API (SigV4, service execute-api)' });
    new CfnOutput(this, 'BucketName', { value: this.log.bucket.bucketName, description: 'Segment bucket' });
    new CfnOutput(this, 'TableName', { value: this.log.table.tableName, description: 'Metadata table' });
    if (this.log.kafkaGateway) {
      new CfnOutput(this, 'KafkaBootstrapServers', {
        value: `${this.log.kafkaGateway.advertisedHost}:${this.log.kafkaGateway.port}`,
        description: 'Kafka bootstrap servers (TLS, SASL/OAUTHBEARER with IAM tokens; gatewayId = the host)',
      });
      if (this.log.kafkaGateway.loadBalancer) {
        new CfnOutput(this, 'KafkaLoadBalancerDnsName', {
          value: this.log.kafkaGateway.loadBalancer.loadBalancerDnsName,
          description: 'Point the advertised host name (CNAME or alias) at this',
        });
      }
    }
    for (const name of SLUICE_FUNCTION_NAMES) {
      new CfnOutput(this, `${name[0].toUpperCase()}${name.slice(1)}FunctionName`, {
        value: this.log.functions[name].functionName,
        description: `Direct invoke target for ${name} operations ({ "op": ... } events)`,
      });
    }
  }
}
