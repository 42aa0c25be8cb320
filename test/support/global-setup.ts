// Starts one pair of embedded emulators (dynalite + s3rver) for the whole test run; each test file
// gets its own bucket and table from `test/support/storage.ts`, so files never see each other's data.
import type { TestProject } from 'vitest/node';
import { startEmulators, type Emulators } from '../../lib/local/emulators.js';

let emulators: Emulators | undefined;

export async function setup(project: TestProject): Promise<void> {
  emulators = await startEmulators();
  project.provide('dynamodbEndpoint', emulators.dynamodbEndpoint);
  project.provide('s3Endpoint', emulators.s3Endpoint);
}

export async function teardown(): Promise<void> {
  await emulators?.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    s3Endpoint: string;
  }
}
