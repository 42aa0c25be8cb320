// The registry of Kafka APIs the gateway serves: ApiVersions lists exactly these, the server
// dispatches to them, and test/kafka/fuzz.test.ts fuzzes every key and version listed. A new
// handler is appended here.
import type { AnyKafkaApi } from '../api-handler.js';
import { apiVersionsApi } from './api-versions.js';
import { metadataApi } from './metadata.js';

export const KAFKA_APIS: readonly AnyKafkaApi[] = [apiVersionsApi, metadataApi];
