// FindCoordinator (key 10), versions 0-2 (kafkajs and librdkafka 2.0 use up to 2; 3 is flexible;
// 4+ batch keys). Every gateway is the coordinator of every group: the group's state lives in
// DynamoDB (lib/groups), so whichever gateway a member talks to serves it, and the answer names
// this gateway as Metadata does. Sluice has no transactions, so a transaction coordinator (key
// type 1) is COORDINATOR_NOT_AVAILABLE; any other key type is INVALID_REQUEST.
import type { KafkaApi } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { ApiKey, type FindCoordinatorRequest, type FindCoordinatorResponse } from '../protocol/messages.js';

const GROUP_KEY_TYPE = 0;
const TRANSACTION_KEY_TYPE = 1;

const refused = (errorCode: number, errorMessage: string): FindCoordinatorResponse => ({ throttleTimeMs: 0, errorCode, errorMessage, nodeId: -1, host: '', port: -1 });

export const findCoordinatorApi: KafkaApi<FindCoordinatorRequest, FindCoordinatorResponse> = {
  apiKey: ApiKey.FindCoordinator,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 2,
  async handle(request, call) {
    if (request.keyType === TRANSACTION_KEY_TYPE) {
      return refused(KafkaError.COORDINATOR_NOT_AVAILABLE, 'Sluice has no transactions, so there is no transaction coordinator');
    }
    if (request.keyType !== GROUP_KEY_TYPE) return refused(KafkaError.INVALID_REQUEST, `unknown coordinator key type ${request.keyType}`);
    if (request.key === '') return refused(KafkaError.INVALID_GROUP_ID, 'the group id must not be empty');
    const { nodeId, advertisedHost, advertisedPort } = call.gateway;
    return { throttleTimeMs: 0, errorCode: KafkaError.NONE, errorMessage: null, nodeId, host: advertisedHost, port: advertisedPort };
  },
  errorResponse: (_request, errorCode) => refused(errorCode, 'the coordinator could not be found'),
};
