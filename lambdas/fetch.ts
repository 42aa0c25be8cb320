// Fetch function: reading records and listing offsets (long-polls, so its timeout exceeds SLUICE_MAX_WAIT_MS).
import { createLambdaHandler } from '../lib/api/lambda-adapter.js';
import { functionOperations } from '../lib/api/operations.js';

export const handler = createLambdaHandler(functionOperations.fetch);
