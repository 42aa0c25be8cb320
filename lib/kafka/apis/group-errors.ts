// The error code a group API answers a failure with. Kafka's group errors map by name
// (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS, ...). A failure of the storage
// under the coordinator — throttling, a timeout, a group item too contended to update, anything
// unexpected — is COORDINATOR_NOT_AVAILABLE, as Kafka's coordinator answers while its log is
// unavailable: every client then finds the coordinator again and retries. The cause is logged.
import { isSluiceError, type ErrorCode } from '../../errors.js';
import { toSluiceError } from '../../metadata/aws-errors.js';
import { KafkaError, kafkaErrorCode } from '../protocol/error-codes.js';

const STORAGE_FAILURES: ReadonlySet<ErrorCode> = new Set(['THROTTLING', 'REQUEST_TIMED_OUT', 'UNKNOWN_SERVER_ERROR']);

export function groupErrorCode(e: unknown, what: string): number {
  const error = isSluiceError(e) ? e : toSluiceError(e, what);
  return STORAGE_FAILURES.has(error.code) ? KafkaError.COORDINATOR_NOT_AVAILABLE : kafkaErrorCode(error);
}
