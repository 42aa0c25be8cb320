#!/usr/bin/env node
// Launcher for the `sluice` CLI.
//   - Installed from the package, it runs the compiled CLI, dist/lib/cli/main.js (npm run build,
//     which `npm pack` runs through prepack; the package ships no TypeScript).
//   - In a clone of the repository (lib/cli/main.ts beside it), it runs the source through tsx, a
//     dev dependency, so `npx sluice …` needs no build step and never runs a stale dist/. A clone
//     installed without dev dependencies falls back to dist/ when it has been built.
import { existsSync } from 'node:fs';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const source = new URL('../lib/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/lib/cli/main.js', import.meta.url);

async function loadTsx() {
  try {
    return await import('tsx/esm/api');
  } catch (e) {
    if (existsSync(compiled)) return undefined;
    throw new Error('sluice: lib/cli/main.ts needs tsx (npm install in the repository) or a build (npm run build)', { cause: e });
  }
}

const tsx = existsSync(source) ? await loadTsx() : undefined;
if (tsx) {
  tsx.register();
  await import(source.href);
} else {
  await import(compiled.href);
}
