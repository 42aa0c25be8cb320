// The HTTP routes of ../shared/api.md and the function that serves each one. This table is the
// single source for the API Gateway routes and for the execute-api grants, so a path added here
// is routed, IAM-authorized and covered by `grant*()` at once.

/** One Lambda function per concern; the name is also the handler file `lambdas/<name>.ts`. */
export type SluiceFunctionName = 'produce' | 'fetch' | 'admin' | 'groups' | 'retention';

export const SLUICE_FUNCTION_NAMES: readonly SluiceFunctionName[] = ['produce', 'fetch', 'admin', 'groups', 'retention'];

export interface SluiceRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway route path, `{param}` segments as in api.md. */
  readonly path: string;
  readonly fn: Exclude<SluiceFunctionName, 'retention'>;
}

export const SLUICE_ROUTES: readonly SluiceRoute[] = [
  { method: 'POST', path: '/v1/topics', fn: 'admin' },
  { method: 'GET', path: '/v1/topics', fn: 'admin' },
  { method: 'GET', path: '/v1/topics/{topic}', fn: 'admin' },
  { method: 'DELETE', path: '/v1/topics/{topic}', fn: 'admin' },
  { method: 'POST', path: '/v1/topics/{topic}/partitions', fn: 'admin' },

  { method: 'POST', path: '/v1/topics/{topic}/records', fn: 'produce' },
  { method: 'POST', path: '/v1/producers', fn: 'produce' },

  { method: 'GET', path: '/v1/topics/{topic}/partitions/{partition}/records', fn: 'fetch' },
  { method: 'GET', path: '/v1/topics/{topic}/partitions/{partition}/offsets', fn: 'fetch' },

  { method: 'GET', path: '/v1/groups', fn: 'groups' },
  { method: 'GET', path: '/v1/groups/{group}', fn: 'groups' },
  { method: 'DELETE', path: '/v1/groups/{group}', fn: 'groups' },
  { method: 'POST', path: '/v1/groups/{group}/members', fn: 'groups' },
  { method: 'POST', path: '/v1/groups/{group}/members/{memberId}/heartbeat', fn: 'groups' },
  { method: 'DELETE', path: '/v1/groups/{group}/members/{memberId}', fn: 'groups' },
  { method: 'POST', path: '/v1/groups/{group}/offsets', fn: 'groups' },
  { method: 'GET', path: '/v1/groups/{group}/offsets', fn: 'groups' },
  { method: 'POST', path: '/v1/groups/{group}/offsets/reset', fn: 'groups' },
];

/** Which functions each `grant*()` opens: a producer, a consumer (fetch + its group), an administrator. */
export const GRANT_SCOPES = {
  produce: ['produce'],
  consume: ['fetch', 'groups'],
  admin: ['admin'],
} as const satisfies Record<string, readonly SluiceRoute['fn'][]>;
