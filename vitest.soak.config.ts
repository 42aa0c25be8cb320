// `npm run soak` (SLUICE_SOAK=1): the proof suite with its long profile — thousands of model cases,
// longer op sequences, more kill -9 restarts, minutes of load — with GC exposed so the load test
// can assert that memory stays flat.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/proof/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    execArgv: ['--expose-gc'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', SLUICE_SOAK: '1' },
  },
});
