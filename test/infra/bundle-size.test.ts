// Cold-start budget: every handler, bundled exactly as the CDK app bundles it (esbuild, minified
// ESM for node22, AWS SDK v3 external because the runtime provides it), must stay under 300 KB.
// Prints the measured sizes; the same numbers come from `npx tsx infra/bundle-sizes.ts`.
import { describe, expect, it } from 'vitest';
import { measureBundles } from '../../infra/bundle-sizes.js';

const BUDGET_BYTES = 300 * 1024;

describe('handler bundles', () => {
  it('keep every function under 300 KB minified', async () => {
    const sizes = await measureBundles();
    console.log(sizes.map((s) => `${s.name.padEnd(10)} ${(s.bytes / 1024).toFixed(1).padStart(7)} KB`).join('\n'));
    expect(sizes.map((s) => s.name).sort()).toEqual(['admin', 'fetch', 'groups', 'produce', 'retention', 'subscriptions']);
    for (const s of sizes) expect(s.bytes, `${s.name} bundle`).toBeLessThan(BUDGET_BYTES);
  });
});
