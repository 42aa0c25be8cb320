// The Sluice client library: `new Sluice({endpoint})` and what it hands out.
export { Sluice, DEFAULT_ENDPOINT, type SluiceOptions } from './sluice.js';
export { Producer, type ProducerOptions, type ProducerRecord, type RecordMetadata, type SendFailure } from './producer.js';
export type { BufferFullPolicy } from './record-accumulator.js';
export type { PartitionerOption, CustomPartitioner } from './partitioning.js';
export type { Message, MessageHeaders, Bytes } from './message.js';
export {
  Consumer,
  type ConsumerOptions,
  type ConsumedMessage,
  type RunOptions,
  type EachMessagePayload,
  type EachBatchPayload,
  type Batch,
} from './consumer.js';
export {
  Admin,
  ConfigResourceTypes,
  ConfigSource,
  type TopicSpec,
  type PartitionOffsets,
  type ResetTarget,
  type GroupLag,
  type DescribeConfigResource,
  type DescribeConfigResponse,
  type ConfigEntry,
  type AlterConfigResource,
  type IncrementalAlterConfigResource,
  type AlterConfigOpType,
  type AlterConfigsResponse,
} from './admin.js';
export { SluiceClientError, isSluiceClientError } from './errors.js';
export { withRetry, backoffDelay, type RetryOptions } from './retry.js';
export { HttpTransport, awsSigningTarget, type HttpTransportOptions } from './transport-http.js';
export { LambdaTransport, type LambdaTransportOptions } from './transport-lambda.js';
export type { Transport, SluiceRequest } from './transport.js';
export { SluiceApi } from './wire.js';
export type { TopicPartition } from './topic-partitions.js';
export type { Assignor, TopicPartitions, TopicDescription, TopicConfigDescription, GroupDescription, GroupListing, CommittedOffset } from './wire.js';
export {
  iamOAuthBearerProvider,
  iamTokenSigner,
  stsRegionalEndpoint,
  type IamOAuthBearerOptions,
  type OAuthBearerSasl,
  type IamAuthToken,
} from './iam-oauthbearer.js';
export type {
  CreateSubscriptionRequest,
  OnFailureDestination,
  StartingPosition,
  SubscriptionDescription,
  SubscriptionInfo,
  SubscriptionOptions,
  SubscriptionPartitionStatus,
  SubscriptionTarget,
} from './wire.js';
