// Which request the code running now serves: its request id, operation and topic, carried by
// AsyncLocalStorage from the handler down to wherever a failure is logged (deep in lib/log or
// lib/groups, which know nothing of events). A process-wide logger key would not do: the local
// server runs many requests at once on one logger, and their keys would overwrite each other.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestScope {
  /** API Gateway's request id for an HTTP event (the access log's), Lambda's for a direct invoke. */
  readonly requestId?: string;
  readonly operation?: string;
  readonly topic?: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInRequestScope<T>(scope: RequestScope, run: () => Promise<T>): Promise<T> {
  return storage.run(scope, run);
}

/** The scope of the request being served, or an empty one outside any (maintenance, tests). */
export function currentRequestScope(): RequestScope {
  return storage.getStore() ?? {};
}
