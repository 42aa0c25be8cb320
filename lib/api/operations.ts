// The registry of every operation, grouped by the Lambda function that serves it. The CDK stack,
// the Lambda entry points (lambdas/*.ts) and the local server all read this one table, so a route
// exists in the cloud exactly when it exists locally.
import { fetchOperations } from './fetch-operations.js';
import { groupOperations } from './group-operations.js';
import { openApiOperation } from './openapi.js';
import type { Operation } from './operation.js';
import { produceOperation } from './produce-operation.js';
import { producerOperations } from './producer-operations.js';
import { subscriptionOperations } from './subscription-operations.js';
import { topicOperations } from './topic-operations.js';

/** Operations per Lambda function (key = function name, lambdas/<key>.ts). */
export const functionOperations = {
  produce: [produceOperation, ...producerOperations],
  fetch: [...fetchOperations],
  // The admin function also manages subscriptions (and serves Custom::SluiceSubscription, lambdas/admin.ts)
  // and answers GET /v1/openapi.json: the document of this table.
  admin: [...topicOperations, ...subscriptionOperations, openApiOperation((): Readonly<Record<string, readonly Operation[]>> => functionOperations)],
  groups: [...groupOperations],
} as const satisfies Record<string, readonly Operation[]>;

export type FunctionName = keyof typeof functionOperations;

export const allOperations: readonly Operation[] = Object.values(functionOperations).flat();
