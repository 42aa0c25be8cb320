// The registry of Kafka APIs the gateway serves: ApiVersions lists exactly these, the server
// dispatches to them, and test/kafka/fuzz.test.ts fuzzes every key and version listed. A new
// handler is appended here.
import type { AnyKafkaApi } from '../api-handler.js';
import { alterConfigsApi } from './alter-configs.js';
import { apiVersionsApi } from './api-versions.js';
import { createPartitionsApi } from './create-partitions.js';
import { createTopicsApi } from './create-topics.js';
import { deleteTopicsApi } from './delete-topics.js';
import { fetchApi } from './fetch.js';
import { initProducerIdApi } from './init-producer-id.js';
import { describeConfigsApi } from './describe-configs.js';
import { describeGroupsApi } from './describe-groups.js';
import { findCoordinatorApi } from './find-coordinator.js';
import { heartbeatApi } from './heartbeat.js';
import { incrementalAlterConfigsApi } from './incremental-alter-configs.js';
import { joinGroupApi } from './join-group.js';
import { leaveGroupApi } from './leave-group.js';
import { listGroupsApi } from './list-groups.js';
import { listOffsetsApi } from './list-offsets.js';
import { metadataApi } from './metadata.js';
import { offsetCommitApi } from './offset-commit.js';
import { offsetFetchApi } from './offset-fetch.js';
import { saslAuthenticateApi } from './sasl-authenticate.js';
import { saslHandshakeApi } from './sasl-handshake.js';
import { syncGroupApi } from './sync-group.js';
import { produceApi } from './produce.js';

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
  findCoordinatorApi,
  joinGroupApi,
  syncGroupApi,
  heartbeatApi,
  leaveGroupApi,
  offsetCommitApi,
  offsetFetchApi,
  listGroupsApi,
  describeGroupsApi,
  produceApi,
  fetchApi,
  initProducerIdApi,
];
