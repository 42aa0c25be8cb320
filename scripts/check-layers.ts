// The import graph of lib/ has no edge from a lower layer to a higher one and no cycle between
// files. `npm run check:layers` (CI runs it before the tests) exits 1 naming every offending import.
//
// A module is a folder of lib/ (lib/log/) or a file at its top (lib/errors.ts). Layers, bottom → top;
// a module imports only modules of lower layers of its own stack, never a peer of its own layer:
//
//   shared base   1 errors                SluiceError and Kafka's error codes
//                 2 records, partitioners the RecordBatch codec and its frames; partitioners
//   server        3 observability         logger, metrics, request scope
//                 4 context               SluiceContext: injected clients, settings, caches
//                 5 metadata              every DynamoDB item of the log and topics: keys, reads, writes
//                 6 log                   append, read, spill, merge, retention, sweep, topic deletion
//                 7 groups                consumer groups (their items are written by group-store.ts)
//                 8 subscriptions         push delivery: subscription items, poller leases, the dispatcher
//                 9 api                   operations, validation, HTTP/Lambda routing
//                10 kafka                 the Kafka wire-protocol gateway (reuses api's broker-side checks)
//                11 local                 the local server over the emulators
//   client        3 client                the SDK: imports no server code
//                 4 cli, index            the `sluice` CLI; the package entry
//
// A module not placed here fails the check, so a new folder gets a layer before it gets code.
// docs/ARCHITECTURE.md describes what each layer owns.
//
// Usage: tsx scripts/check-layers.ts [root]   (root defaults to lib/ of this repository)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const SHARED: readonly (readonly string[])[] = [['errors'], ['records', 'partitioners']];

/** Each stack lists its layers bottom → top; the shared base is the bottom of both. */
export const STACKS: readonly (readonly (readonly string[])[])[] = [
  [...SHARED, ['observability'], ['context'], ['metadata'], ['log'], ['groups'], ['subscriptions'], ['api'], ['kafka'], ['local']],
  [...SHARED, ['client'], ['cli', 'index']],
];

export interface Violation {
  readonly kind: 'back-edge' | 'cycle' | 'unplaced' | 'unresolved';
  readonly message: string;
}

/** The modules `module` may import: every module below its layer in each stack holding it. */
export function allowedImports(module: string, stacks = STACKS): Set<string> | undefined {
  let allowed: Set<string> | undefined;
  for (const stack of stacks) {
    const layer = stack.findIndex((l) => l.includes(module));
    if (layer < 0) continue;
    allowed ??= new Set();
    for (const below of stack.slice(0, layer)) for (const m of below) allowed.add(m);
  }
  return allowed;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(m|c)?tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** lib/log/read.ts → 'log'; lib/errors.ts → 'errors'. */
function moduleOf(root: string, file: string): string {
  const first = relative(root, file).split(sep)[0];
  return first.replace(/\.(m|c)?tsx?$/, '');
}

/** The file a relative specifier names (`./x.js` is `./x.ts` under NodeNext), or undefined. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m|c)?jsx?$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // next candidate
    }
  }
  return undefined;
}

/**
 * Every relative import of every file under `root`: static imports (type-only ones too: a type
 * is a dependency on the concept), `export ... from`, dynamic `import()` and `require`.
 */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets: string[] = [];
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue; // a package
      targets.push(resolveSpecifier(file, fileName) ?? `${resolve(dirname(file), fileName)}\0unresolved`);
    }
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): Tarjan. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** One concrete cycle through `component`, as a path that ends where it starts. */
function cyclePath(graph: Map<string, string[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path: string[] = [];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = previous.get(u)) path.unshift(u);
        return [start, ...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}

export function checkLayers(root: string, stacks = STACKS): Violation[] {
  const graph = importGraph(root);
  const show = (file: string) => relative(dirname(root), file).split(sep).join('/');
  const violations: Violation[] = [];
  const unplaced = new Set<string>();
  for (const [file, targets] of graph) {
    const from = moduleOf(root, file);
    const allowed = allowedImports(from, stacks);
    if (!allowed) {
      if (!unplaced.has(from)) violations.push({ kind: 'unplaced', message: `${show(file)}: module '${from}' is in no layer of scripts/check-layers.ts` });
      unplaced.add(from);
      continue;
    }
    for (const target of targets) {
      if (target.endsWith('\0unresolved')) {
        violations.push({ kind: 'unresolved', message: `${show(file)} imports ${show(target.slice(0, -'\0unresolved'.length))}, which does not exist` });
        continue;
      }
      if (relative(root, target).startsWith('..')) continue; // outside the checked tree
      const to = moduleOf(root, target);
      if (to === from || allowed.has(to)) continue;
      const why = allowedImports(to, stacks) === undefined ? `'${to}' is in no layer` : `'${from}' may import only ${[...allowed].join(', ') || 'nothing'}`;
      violations.push({ kind: 'back-edge', message: `${show(file)} imports ${show(target)}: ${why}` });
    }
  }
  for (const component of cycles(graph)) {
    violations.push({ kind: 'cycle', message: `import cycle: ${cyclePath(graph, component).map(show).join(' → ')}` });
  }
  return violations;
}

function main(): void {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'lib'));
  const violations = checkLayers(root);
  const files = importGraph(root).size;
  if (violations.length === 0) {
    console.log(`check-layers: ${files} files under ${relative(process.cwd(), root) || '.'}: no back-edge, no cycle`);
    return;
  }
  for (const v of violations) console.error(`${v.kind}: ${v.message}`);
  console.error(`check-layers: ${violations.length} violation(s) in ${files} files`);
  process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
