// InitProducerId (key 22), versions 0-4 (kafkajs uses 0-1, librdkafka up to 4; 2+ is flexible).
// An idempotent producer gets a fresh producer id at epoch 0 from the cluster's counter
// (lib/metadata/producer-ids.ts, the same ids POST /v1/producers hands out, so Produce can verify
// them without a read). As a Kafka broker does for a producer without a transactional id, a v3+
// request naming its current id and epoch (KIP-360) also gets a fresh id: sequences restart at 0.
//
// Transactions are not supported. A transactionalId is answered TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
// the error a broker gives a principal that may not use transactional ids: both kafkajs and
// librdkafka treat it as fatal and name it to the application at once, where
// COORDINATOR_NOT_AVAILABLE would be retried forever and UNSUPPORTED_VERSION would read as a
// client/broker version mismatch.
import { toSluiceError } from '../../metadata/aws-errors.js';
import { allocateProducerId } from '../../metadata/producer-ids.js';
import { logger } from '../../observability/logger.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError, NONE, kafkaErrorCode } from '../protocol/error-codes.js';
import { ApiKey, type InitProducerIdRequest, type InitProducerIdResponse } from '../protocol/messages.js';

export const initProducerIdApi: KafkaApi<InitProducerIdRequest, InitProducerIdResponse> = {
  apiKey: ApiKey.InitProducerId,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 4,
  async handle(request, call) {
    if (request.transactionalId !== null) {
      logger.info('kafka InitProducerId: transactions are not supported', { transactionalId: request.transactionalId, clientId: call.clientId });
      return { throttleTimeMs: 0, errorCode: KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1n, producerEpoch: -1 };
    }
    try {
      const { producerId, producerEpoch } = await allocateProducerId(call.gateway.ctx);
      return { throttleTimeMs: 0, errorCode: NONE, producerId: BigInt(producerId), producerEpoch };
    } catch (e) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(toSluiceError(e, 'InitProducerId')), producerId: -1n, producerEpoch: -1 };
    }
  },
  errorResponse(_request, errorCode) {
    return { throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 };
  },
};
