// Produce function: POST /v1/topics/{topic}/records and POST /v1/producers.
import { createLambdaHandler } from '../lib/api/lambda-adapter.js';
import { functionOperations } from '../lib/api/operations.js';

export const handler = createLambdaHandler(functionOperations.produce);
