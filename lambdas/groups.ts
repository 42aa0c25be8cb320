// Groups function: consumer-group membership, offsets, describe/list, reset and delete.
import { createLambdaHandler } from '../lib/api/lambda-adapter.js';
import { functionOperations } from '../lib/api/operations.js';

export const handler = createLambdaHandler(functionOperations.groups);
