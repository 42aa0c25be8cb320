// The HTTP half of the error contract (README.md "Errors": codes and statuses): each of Sluice's error codes
// (lib/errors.ts) answered with its status, and the body every error has.
import * as z from 'zod';
import type { ErrorCode, SluiceError } from '../errors.js';

const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  UNKNOWN_TOPIC_OR_PARTITION: 404,
  TOPIC_ALREADY_EXISTS: 409,
  INVALID_TOPIC_EXCEPTION: 400,
  INVALID_REQUEST: 400,
  INVALID_PARTITIONS: 400,
  INVALID_CONFIG: 400,
  OFFSET_OUT_OF_RANGE: 416,
  MESSAGE_TOO_LARGE: 413,
  CORRUPT_MESSAGE: 500,
  INVALID_RECORD: 400,
  ILLEGAL_GENERATION: 409,
  UNKNOWN_MEMBER_ID: 409,
  INCONSISTENT_GROUP_PROTOCOL: 409,
  REBALANCE_IN_PROGRESS: 409,
  NON_EMPTY_GROUP: 409,
  GROUP_ID_NOT_FOUND: 404,
  MEMBER_ID_REQUIRED: 409,
  INVALID_GROUP_ID: 400,
  FENCED_INSTANCE_ID: 409,
  INVALID_SESSION_TIMEOUT: 400,
  GROUP_MAX_SIZE_REACHED: 409,
  OFFSET_METADATA_TOO_LARGE: 400,
  COORDINATOR_NOT_AVAILABLE: 503,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 409,
  INVALID_PRODUCER_EPOCH: 409,
  UNKNOWN_PRODUCER_ID: 409,
  DUPLICATE_SEQUENCE_NUMBER: 409,
  THROTTLING: 429,
  REQUEST_TIMED_OUT: 503,
  NOT_FOUND: 404,
  SUBSCRIPTION_ALREADY_EXISTS: 409,
  SUBSCRIPTION_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  // Kafka's name for a request the cluster does not authorize; the local server's answer to a
  // request from a web page (cross-site Origin) or for another host name (DNS rebinding).
  CLUSTER_AUTHORIZATION_FAILED: 403,
  // HTTP's, like NOT_FOUND: a body in a media type the API does not take (a form or text/plain POST).
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNKNOWN_SERVER_ERROR: 500,
};

/** Every error code, in the order above (the OpenAPI document's ErrorCode enum). */
export const ERROR_CODES = Object.keys(HTTP_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The HTTP status an error is answered with. */
export function httpStatusOf(error: SluiceError): number {
  return HTTP_STATUS[error.code];
}

/** The error body of every failure (SluiceError.toBody, router.ts errorResponse): the OpenAPI document's Error. */
export const errorBodySchema = z.strictObject({
  error: z
    .looseObject({
      code: z.enum(ERROR_CODES).meta({ id: 'ErrorCode', description: "Kafka's error name (lib/errors.ts)" }),
      message: z.string(),
      retriable: z.boolean().describe('Whether the same request may succeed later (after Retry-After seconds when given)'),
    })
    .describe('Code-specific fields may follow, e.g. logStartOffset and highWatermark for OFFSET_OUT_OF_RANGE'),
});
