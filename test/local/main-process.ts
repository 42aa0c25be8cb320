// Runs `lib/local/main.ts` (what `npm start` runs) as a child process: `node --import tsx`, one
// process, so a SIGKILL really kills the server and its embedded emulators at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));

export interface MainProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
}

/** Starts main.ts with `env` on top of a clean environment (no AWS endpoint unless given). */
export async function startMain(env: Record<string, string>): Promise<MainProcess> {
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('AWS_') || k.startsWith('SLUICE_')) delete base[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/main.ts'], {
    cwd: repo,
    env: { ...base, PORT: '0', KAFKA_PORT: '0', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`main.ts did not start:\n${out}`)), 45_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Sluice listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`main.ts exited (${code}) before listening:\n${out}`));
    });
  });
  return { url, child, output: () => out, exited };
}

export async function request(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
}
