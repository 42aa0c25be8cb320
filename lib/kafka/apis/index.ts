// The registry of Kafka APIs the gateway serves: ApiVersions lists exactly these, the server
// dispatches to them, and test/kafka/fuzz.test.ts fuzzes every key and version listed. A new
// handler is appended here.
import type { AnyKafkaApi } from '../api-handler.js';
import { alterConfigsApi } from './alter-configs.js';
import { apiVersionsApi } from './api-versions.js';
import { createPartitionsApi } from './create-partitions.js';
import { createTopicsApi } from './create-topics.js';
import { deleteTopicsApi } from './delete-topics.js';
import { describeConfigsApi } from './describe-configs.js';
import { incrementalAlterConfigsApi } from './incremental-alter-configs.js';
import { listOffsetsApi } from './list-offsets.js';
import { metadataApi } from './metadata.js';
import { saslAuthenticateApi } from './sasl-authenticate.js';
import { saslHandshakeApi } from './sasl-handshake.js';

export const KAFKA_APIS: readonly AnyKafkaApi[] = [
  apiVersionsApi,
  metadataApi,
  listOffsetsApi,
  createTopicsApi,
  deleteTopicsApi,
  createPartitionsApi,
  describeConfigsApi,
  alterConfigsApi,
  incrementalAlterConfigsApi,
  saslHandshakeApi,
  saslAuthenticateApi,
];
