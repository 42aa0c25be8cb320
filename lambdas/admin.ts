// Admin function: topic create, list, describe, add partitions, delete.
import { createLambdaHandler } from '../lib/api/lambda-adapter.js';
import { functionOperations } from '../lib/api/operations.js';

export const handler = createLambdaHandler(functionOperations.admin);
