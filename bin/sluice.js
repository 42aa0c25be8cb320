#!/usr/bin/env node
// Launcher for the `sluice` CLI: registers tsx's ESM loader, then runs lib/cli/main.ts straight
// from source, so `npx sluice …` works in the repository without a build step.
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
await import(new URL('../lib/cli/main.ts', import.meta.url).href);
