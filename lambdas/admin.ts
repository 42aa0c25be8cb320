// Admin function: topic create, list, describe, add partitions, delete; subscription create, list,
// describe, delete — over HTTP, by direct invoke, and as CloudFormation's Custom::SluiceSubscription
// (lib/api/subscription-resource.ts), which `sluiceLog.addSubscription` deploys.
import { createLambdaHandler } from '../lib/api/lambda-adapter.js';
import { functionOperations } from '../lib/api/operations.js';
import { withSubscriptionResources } from '../lib/api/subscription-resource.js';

export const handler = withSubscriptionResources(createLambdaHandler(functionOperations.admin));
