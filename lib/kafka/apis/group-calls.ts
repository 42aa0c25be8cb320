// What the group APIs share: the order of a connection's group requests, and the error code a
// failure is answered with.
//
// A connection's group requests take effect one at a time, in the order they arrived, as a Kafka
// broker handles a connection's requests (a commit then a LeaveGroup must not be reordered, and
// a member's Heartbeat waits behind its own JoinGroup); other connections and other APIs of
// this one go on concurrently.
//
// Errors: Kafka's group errors map by name Kafka's group errors map by name
// (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS, ...). A failure of the storage
// under the coordinator — throttling, a timeout, a group item too contended to update, anything
// unexpected — is COORDINATOR_NOT_AVAILABLE, as Kafka's coordinator answers while its log is
// unavailable: every client then finds the coordinator again and retries. The cause is logged.
import { isSluiceError, type ErrorCode } from '../../errors.js';
import { toSluiceError } from '../../metadata/aws-errors.js';
import type { KafkaCall } from '../api-handler.js';
import { KafkaError, kafkaErrorCode } from '../protocol/error-codes.js';

const STORAGE_FAILURES: ReadonlySet<ErrorCode> = new Set(['THROTTLING', 'REQUEST_TIMED_OUT', 'UNKNOWN_SERVER_ERROR']);

export function groupErrorCode(e: unknown, what: string): number {
  const error = isSluiceError(e) ? e : toSluiceError(e, what);
  return STORAGE_FAILURES.has(error.code) ? KafkaError.COORDINATOR_NOT_AVAILABLE : kafkaErrorCode(error);
}

/** Runs a group request after the connection's earlier group requests. */
export function inGroupOrder<T>(call: KafkaCall, task: () => Promise<T>): Promise<T> {
  return call.connection.serially('groups', task);
}
