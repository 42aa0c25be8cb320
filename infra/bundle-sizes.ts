// Bundles every handler with the CDK app's esbuild options (BUNDLE_OPTIONS) in memory and reports
// the minified sizes. `npx tsx infra/bundle-sizes.ts` prints them; the bundle-size test asserts them.
import { build } from 'esbuild';
import { BUNDLE_OPTIONS, handlerEntry } from './sluice-functions.js';
import { SLUICE_HANDLER_NAMES, type SluiceHandlerName } from './routes.js';

export interface BundleSize {
  readonly name: SluiceHandlerName;
  readonly bytes: number;
}

export async function measureBundles(): Promise<BundleSize[]> {
  const sizes: BundleSize[] = [];
  // One at a time: esbuild is fast, and parallel builds only contend for 2 cores.
  for (const name of SLUICE_HANDLER_NAMES) {
    const result = await build({
      entryPoints: [handlerEntry(name)],
      bundle: true,
      write: false,
      platform: 'node',
      target: BUNDLE_OPTIONS.target,
      format: BUNDLE_OPTIONS.format,
      minify: BUNDLE_OPTIONS.minify,
      sourcemap: BUNDLE_OPTIONS.sourceMap,
      external: [...BUNDLE_OPTIONS.externalModules],
      mainFields: [...BUNDLE_OPTIONS.mainFields],
      banner: { js: BUNDLE_OPTIONS.banner },
      outfile: `${name}.mjs`,
      logLevel: 'silent',
    });
    sizes.push({ name, bytes: result.outputFiles.reduce((n, f) => n + f.contents.byteLength, 0) });
  }
  return sizes;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const s of await measureBundles()) console.log(`${s.name.padEnd(10)} ${(s.bytes / 1024).toFixed(1).padStart(7)} KB`);
}
