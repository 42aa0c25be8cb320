// Several `npm start` servers (lib/local/main.ts) as separate OS processes on ONE storage endpoint:
// what several warm Lambda containers are in AWS, each its own writer with its own owner id, SDK
// clients and in-process state. Each listens on its own port; all share one bucket and table.
// Used by the multi-writer tests and the bench, so it imports nothing from vitest.
//
// A process is ready when it prints its "Sluice listening on" line: main.ts prints it only after
// the bucket and table exist and the HTTP server is listening.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EMULATOR_CREDENTIALS } from '../../lib/local/emulators.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** Where every process keeps its data: the endpoints of the emulators (or LocalStack), one bucket, one table. */
export interface SharedStorage {
  readonly s3Endpoint: string;
  readonly dynamodbEndpoint: string;
  readonly bucket: string;
  readonly table: string;
}

export interface ServerProcess {
  /** 1, 2, 3… in start order, for messages. */
  readonly id: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code, or the signal that ended the process. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** The last few KB of stdout + stderr, for failure messages. */
  outputTail(): string;
  running(): boolean;
}

/** Output kept per process: main.ts logs a line per request, so keeping all of it would grow without bound. */
const TAIL_CHARS = 16_384;
const START_TIMEOUT_MS = 45_000;

let started = 0;

/**
 * Starts one server process on `storage`. `env` goes on top of a clean environment: no AWS_ or
 * SLUICE_ variable of the caller leaks in, so every process is configured alike.
 */
export async function startServerProcess(storage: SharedStorage, env: Record<string, string> = {}): Promise<ServerProcess> {
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('AWS_') || k.startsWith('SLUICE_')) delete base[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/main.ts'], {
    cwd: repo,
    env: {
      ...base,
      // Both services' endpoints: with only one of them set, the other would go to real AWS.
      AWS_ENDPOINT_URL_S3: storage.s3Endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: storage.dynamodbEndpoint,
      AWS_ACCESS_KEY_ID: EMULATOR_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: EMULATOR_CREDENTIALS.secretAccessKey,
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      SLUICE_BUCKET: storage.bucket,
      SLUICE_TABLE: storage.table,
      PORT: '0',
      // Several processes at once: none takes Kafka's fixed port (a test that wants the gateway sets one).
      KAFKA_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const id = ++started;
  let tail = '';
  let listening: ((url: string) => void) | undefined;
  // Always drained: a full stdout pipe would block the server's request log, and with it the server.
  const onData = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-TAIL_CHARS);
    if (listening) {
      const m = /Sluice listening on (http:\/\/\S+)/.exec(tail);
      if (m) {
        listening(m[1]);
        listening = undefined;
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server process ${id} did not start within ${START_TIMEOUT_MS} ms:\n${tail}`));
    }, START_TIMEOUT_MS);
    listening = (u) => {
      clearTimeout(timer);
      resolve(u);
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server process ${id} exited (${code}) before listening:\n${tail}`));
    });
  });
  return {
    id,
    url,
    child,
    exited,
    outputTail: () => tail,
    running: () => child.exitCode === null && child.signalCode === null,
  };
}

/** A group of server processes on one storage endpoint; `close()` ends every one still running. */
export class ServerProcesses {
  readonly all: ServerProcess[] = [];

  constructor(
    readonly storage: SharedStorage,
    private readonly env: Record<string, string> = {},
  ) {}

  /** Starts `count` more processes in parallel and waits until every one is ready. */
  async start(count = 1): Promise<ServerProcess[]> {
    const results = await Promise.allSettled(Array.from({ length: count }, () => startServerProcess(this.storage, this.env)));
    const ready = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    this.all.push(...ready);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return ready;
  }

  /** The processes still running, in start order. */
  running(): ServerProcess[] {
    return this.all.filter((p) => p.running());
  }

  /** `kill -9`: no shutdown code runs, in-flight requests die with the process. */
  async kill(p: ServerProcess): Promise<void> {
    if (p.running()) p.child.kill('SIGKILL');
    await p.exited;
  }

  /** SIGTERM, as `npm start` gets from Ctrl-C's sibling; SIGKILL if it has not exited within `graceMs`. */
  async stop(p: ServerProcess, graceMs = 5000): Promise<number | NodeJS.Signals | null> {
    if (!p.running()) return p.exited;
    p.child.kill('SIGTERM');
    const timer = setTimeout(() => p.running() && p.child.kill('SIGKILL'), graceMs);
    try {
      return await p.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops every process still running (for afterAll / finally: never throws). */
  async close(): Promise<void> {
    await Promise.all(this.all.map((p) => this.stop(p).catch(() => undefined)));
  }
}
