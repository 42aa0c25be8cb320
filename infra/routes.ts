// The HTTP routes the API Gateway serves, derived from lib/api/operations.ts — the same registry
// the Lambda entry points and the local server use — so a route exists in the cloud exactly when
// it exists locally, goes to the function whose handler serves it, and is IAM-authorized and
// covered by `grant*()` at once.
import { functionOperations } from '../lib/api/operations.js';
import type { Operation } from '../lib/api/operation.js';

/** One Lambda function per concern; the name is also the handler file `lambdas/<name>.ts`. */
export type SluiceFunctionName = 'produce' | 'fetch' | 'admin' | 'groups' | 'retention';

export const SLUICE_FUNCTION_NAMES: readonly SluiceFunctionName[] = ['produce', 'fetch', 'admin', 'groups', 'retention'];

/**
 * Functions deployed only when a feature is first used: the subscriptions poller comes with the
 * first `addSubscription` (infra/sluice-subscription.ts). They serve no HTTP route.
 */
export type SluiceOptionalFunctionName = 'subscriptions';

/** Every handler `lambdas/<name>.ts` the stack can deploy. */
export type SluiceHandlerName = SluiceFunctionName | SluiceOptionalFunctionName;

export const SLUICE_HANDLER_NAMES: readonly SluiceHandlerName[] = [...SLUICE_FUNCTION_NAMES, 'subscriptions'];

export interface SluiceRoute {
  readonly method: Operation['method'];
  /** API Gateway route path, `{param}` segments as in README.md. */
  readonly path: string;
  readonly fn: SluiceFunctionName;
}

function isFunctionName(name: string): name is SluiceFunctionName {
  return (SLUICE_FUNCTION_NAMES as readonly string[]).includes(name);
}

export function routesOf(registry: Readonly<Record<string, readonly Operation[]>>): SluiceRoute[] {
  const routes = new Map<string, SluiceRoute>();
  for (const [fn, operations] of Object.entries(registry)) {
    if (!isFunctionName(fn)) throw new Error(`operations registry names function '${fn}', which the stack does not deploy`);
    for (const op of operations) {
      const key = `${op.method} ${op.path}`;
      const existing = routes.get(key);
      if (existing && existing.fn !== fn) throw new Error(`route ${key} is served by both '${existing.fn}' and '${fn}'`);
      routes.set(key, { method: op.method, path: op.path, fn });
    }
  }
  return [...routes.values()];
}

export const SLUICE_ROUTES: readonly SluiceRoute[] = routesOf(functionOperations);
