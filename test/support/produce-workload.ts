// Clients spreading keyed produce requests over several server processes, and the check of the
// log they leave: the workload of issue 12 ("What it must show", item 1), shared by
// test/local/multi-writer.test.ts, test/local/kill-writer.test.ts and bench/multi-writer.ts.
// Plain HTTP against the documented API (JSON body, per-record offsets in the answer), so it
// holds for any append protocol behind it. Imports nothing from vitest.
//
// Every attempt sends its records with values unique to that attempt
// (`c<client>-r<request>-i<index>-a<attempt>`), so the log check can tell exactly which attempt
// each stored record came from:
//   - acknowledged: must be in the log exactly once, at the partition and offset the answer gave;
//   - refused (THROTTLING, connection refused): nothing was committed, so
//     must be absent;
//   - outcome unknown (timeout, connection reset, REQUEST_TIMED_OUT, 500...): may be present, at most
//     once; counted separately. Its retry is a new attempt with new values, so a record sent twice
//     is two values, never one value twice.
import { randomBytes } from 'node:crypto';
import { createAgents, exchange } from '../../lib/client/http-request.js';
import { backoffDelay, sleep } from '../../lib/client/retry.js';

/** Attempts before a request counts as failed: with the backoff below, well past a killed server's restart. */
const MAX_ATTEMPTS = 20;
const REQUEST_TIMEOUT_MS = 30_000;
/** Codes that promise nothing of the attempt was committed. */
const REFUSALS = new Set(['THROTTLING']);

export type AttemptFate =
  | { readonly kind: 'acknowledged'; readonly partition: number; readonly offset: number }
  | { readonly kind: 'refused'; readonly code: string }
  | { readonly kind: 'unknown'; readonly code: string };

/** What one logical produce request (its records over all its attempts) came to. */
export interface RequestOutcome {
  /** Every record acknowledged by the first attempt. */
  readonly firstTry: boolean;
  /** The first attempt was answered 200 but some partitions failed (Kafka's partial produce). */
  readonly firstTryPartial: boolean;
  readonly attempts: number;
  /** Every record acknowledged (after however many attempts). */
  readonly acknowledged: boolean;
  /** A non-retriable error ended it, e.g. 400: the workload itself is wrong. */
  readonly fatal?: string;
  /** From the first attempt's start to the last answer. */
  readonly ms: number;
}

export interface RunStats {
  readonly processes: number;
  readonly clients: number;
  readonly requests: number;
  readonly firstTry: number;
  /** Requests whose first attempt was acknowledged for some partitions only. */
  readonly firstTryPartial: number;
  readonly attempts: number;
  /** Requests not acknowledged in full after MAX_ATTEMPTS, or ended by a non-retriable error. */
  readonly failed: number;
  readonly acknowledgedRecords: number;
  readonly seconds: number;
  /** Errors seen, per Kafka error code (or socket error): a failed partition of an attempt counts once. */
  readonly errors: Readonly<Record<string, number>>;
  readonly fatal: readonly string[];
}

export interface RunOptions {
  /** The processes' URLs, read before every attempt, so a killed process can leave and a new one join. */
  readonly targets: () => readonly string[];
  readonly clients: number;
  /** Stop each client after this many requests… */
  readonly requestsPerClient?: number;
  /** …or start no request after this many ms… */
  readonly durationMs?: number;
  /** …or once this says so. */
  readonly stop?: () => boolean;
  /** Called after every request, e.g. to kill a process once enough has been acknowledged. */
  readonly onRequest?: (outcome: RequestOutcome) => void;
  readonly maxAttempts?: number;
}

export interface LogCheck {
  readonly partitions: number;
  /** Records read from the log, all partitions. */
  readonly records: number;
  readonly acknowledged: number;
  /** Records of attempts whose outcome was unknown that made it to the log (each at most once). */
  readonly unknownPresent: number;
  /** Each entry describes one violation; all empty = the guarantees hold. */
  readonly gaps: readonly string[];
  readonly missing: readonly string[];
  readonly misplaced: readonly string[];
  readonly duplicates: readonly string[];
  readonly refusedPresent: readonly string[];
  readonly strangers: readonly string[];
}

interface ProduceAnswer {
  readonly offsets?: readonly ({ partition: number } & ({ baseOffset: number; count: number } | { error: { code: string; retriable: boolean } }))[];
  readonly records?: readonly ({ partition: number; offset: number } | { partition: number; error: string })[];
  readonly error?: { code: string; retriable: boolean };
}

/** Every attempt of every request sent through it, and what became of each record. */
export class ProduceLedger {
  private readonly fates = new Map<string, AttemptFate>();
  /** Errors per code: a failed partition of an attempt counts once, a failed attempt as a whole once. */
  private readonly errorTally = new Map<string, number>();
  private nextRequest = 0;
  /** Keep-alive connections of this ledger's clients only, so `run` can drop the idle ones. */
  private readonly agents = createAgents();

  constructor(
    readonly topic: string,
    readonly recordsPerRequest = 32,
  ) {}

  /**
   * One produce request of `recordsPerRequest` records with random keys (so murmur2 spreads them
   * over the partitions, as a Kafka producer's default partitioner would), sent to the targets in
   * turn from `cursor`. A retriable failure is retried with the failed records only, at the next
   * process, after the Sluice client's backoff (full jitter from 100 ms). `Retry-After` is not
   * waited for: it is the wait for the lease of the process that answered, and the retry goes to
   * another one, as a retry through API Gateway lands on whichever container is free.
   */
  async produce(client: number, targets: () => readonly string[], cursor: { next: number }, maxAttempts = MAX_ATTEMPTS): Promise<RequestOutcome> {
    const request = this.nextRequest++;
    const keys = Array.from({ length: this.recordsPerRequest }, () => randomBytes(8).toString('hex'));
    let pending = keys.map((_, i) => i);
    const started = performance.now();
    let attempt = 0;
    let fatal: string | undefined;
    let firstTryPartial = false;
    for (; pending.length > 0 && attempt < maxAttempts && fatal === undefined; attempt++) {
      if (attempt > 0) await sleep(backoffDelay(attempt - 1));
      const urls = targets();
      const url = urls[cursor.next++ % urls.length];
      const values = pending.map((i) => `c${client}-r${request}-i${i}-a${attempt}`);
      const { fates, errors, fatal: f } = await this.attempt(url, pending.map((i, j) => ({ key: keys[i], value: values[j] })));
      fatal = f;
      for (const code of errors) this.errorTally.set(code, (this.errorTally.get(code) ?? 0) + 1);
      const retry: number[] = [];
      fates.forEach((fate, j) => {
        this.fates.set(values[j], fate);
        if (fate.kind !== 'acknowledged') retry.push(pending[j]);
      });
      if (attempt === 0) firstTryPartial = retry.length > 0 && retry.length < pending.length;
      pending = retry;
    }
    return {
      firstTry: attempt === 1 && pending.length === 0,
      firstTryPartial,
      attempts: attempt,
      acknowledged: pending.length === 0,
      fatal,
      ms: performance.now() - started,
    };
  }

  /** One HTTP attempt: the fate of each record sent, in order. */
  private async attempt(
    url: string,
    records: { key: string; value: string }[],
  ): Promise<{ fates: AttemptFate[]; errors: string[]; fatal?: string }> {
    const all = (fate: Exclude<AttemptFate, { kind: 'acknowledged' }>) => ({ fates: records.map((): AttemptFate => fate), errors: [fate.code] });
    let status: number;
    let answer: ProduceAnswer;
    try {
      const res = await exchange(this.agents, {
        method: 'POST',
        url: new URL(`${url}/v1/topics/${this.topic}/records`),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ records }),
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      status = res.status;
      try {
        answer = JSON.parse(res.body.toString('utf8')) as ProduceAnswer;
      } catch {
        return all({ kind: 'unknown', code: `HTTP ${status}` });
      }
    } catch (e) {
      const code = (e as { code?: string; name?: string }).code ?? (e as Error).name;
      // Refused: the connection was never made, so the request was never read.
      return all({ kind: code === 'ECONNREFUSED' ? 'refused' : 'unknown', code });
    }
    if (status !== 200 || !answer.records) {
      const error = answer.error ?? { code: `HTTP ${status}`, retriable: status >= 500 };
      return {
        ...all({ kind: REFUSALS.has(error.code) ? 'refused' : 'unknown', code: error.code }), fatal: error.retriable ? undefined : `${error.code} (HTTP ${status})` };
    }
    // Some partitions may have failed: their `offsets` entry has the error, with `retriable`.
    const partitionErrors = new Map<number, { code: string; retriable: boolean }>();
    for (const o of answer.offsets ?? []) if ('error' in o) partitionErrors.set(o.partition, o.error);
    let fatal: string | undefined;
    const fates = answer.records.map((r): AttemptFate => {
      if ('offset' in r) return { kind: 'acknowledged', partition: r.partition, offset: r.offset };
      const error = partitionErrors.get(r.partition) ?? { code: r.error, retriable: false };
      if (!error.retriable) fatal ??= `${error.code} on partition ${r.partition}`;
      return { kind: REFUSALS.has(error.code) ? 'refused' : 'unknown', code: error.code };
    });
    return { fates, errors: [...partitionErrors.values()].map((e) => e.code), fatal };
  }

  /**
   * `clients` concurrent clients, each sending requests one after another, each to the next
   * process in turn (client i starts at process i, so they do not move in lockstep).
   */
  async run(options: RunOptions): Promise<RunStats> {
    // The servers close a keep-alive connection idle for 5 s (node:http's keepAliveTimeout); a request
    // sent on one just as it closes fails with ECONNRESET, which would count against the first try
    // for a reason that has nothing to do with writers. Runs after a pause start on new connections.
    for (const sockets of Object.values(this.agents.http.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    const started = performance.now();
    let requests = 0;
    let firstTry = 0;
    let firstTryPartial = 0;
    let attempts = 0;
    let failed = 0;
    const fatal: string[] = [];
    const acknowledgedBefore = this.count('acknowledged');
    const errorsBefore = new Map(this.errorTally);
    const more = (n: number) =>
      (options.requestsPerClient === undefined || n < options.requestsPerClient) &&
      (options.durationMs === undefined || performance.now() - started < options.durationMs) &&
      !options.stop?.();
    await Promise.all(
      Array.from({ length: options.clients }, async (_, client) => {
        const cursor = { next: client };
        for (let n = 0; more(n); n++) {
          const outcome = await this.produce(client, options.targets, cursor, options.maxAttempts);
          requests++;
          attempts += outcome.attempts;
          if (outcome.firstTry) firstTry++;
          if (outcome.firstTryPartial) firstTryPartial++;
          if (!outcome.acknowledged) failed++;
          if (outcome.fatal) fatal.push(outcome.fatal);
          options.onRequest?.(outcome);
        }
      }),
    );
    const errors: Record<string, number> = {};
    for (const [code, n] of this.errorTally) if (n > (errorsBefore.get(code) ?? 0)) errors[code] = n - (errorsBefore.get(code) ?? 0);
    return {
      processes: new Set(options.targets()).size,
      clients: options.clients,
      requests,
      firstTry,
      firstTryPartial,
      attempts,
      failed,
      acknowledgedRecords: this.count('acknowledged') - acknowledgedBefore,
      seconds: (performance.now() - started) / 1000,
      errors,
      fatal,
    };
  }

  private count(kind: AttemptFate['kind']): number {
    let n = 0;
    for (const f of this.fates.values()) if (f.kind === kind) n++;
    return n;
  }

  /** One partition from offset 0 to its high watermark; offsets not dense from 0 go to `gaps`. */
  private async readPartition(url: string, p: number, gaps: string[]): Promise<{ offset: number; value: string }[]> {
    const log: { offset: number; value: string }[] = [];
    for (let offset = 0; ; ) {
      const res = await exchange(this.agents, {
        method: 'GET',
        url: new URL(`${url}/v1/topics/${this.topic}/partitions/${p}/records?offset=${offset}&encoding=base64&maxBytes=1048576`),
        headers: {},
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      if (res.status !== 200) throw new Error(`fetch of partition ${p} at ${offset}: ${res.status} ${res.body.toString()}`);
      const read = JSON.parse(res.body.toString('utf8')) as { records: { offset: number; value: string | null }[]; nextOffset: number; highWatermark: number };
      for (const r of read.records) {
        const due = log.length === 0 ? 0 : log[log.length - 1].offset + 1;
        if (r.offset !== due) gaps.push(`partition ${p}: offset ${r.offset} where ${due} was due`);
        log.push({ offset: r.offset, value: r.value === null ? '<null>' : Buffer.from(r.value, 'base64').toString('utf8') });
      }
      if (read.nextOffset >= read.highWatermark) {
        const end = log.length === 0 ? 0 : log[log.length - 1].offset + 1;
        if (end !== read.highWatermark) gaps.push(`partition ${p}: read up to ${end}, high watermark ${read.highWatermark}`);
        return log;
      }
      offset = read.nextOffset;
    }
  }

  /**
   * Reads every partition from offset 0 to its high watermark through `url` (base64, so values
   * come back byte for byte) and checks the log against every attempt's fate.
   */
  async check(url: string, partitions: number): Promise<LogCheck> {
    const gaps: string[] = [];
    const seen = new Map<string, { partition: number; offset: number }[]>();
    let records = 0;
    // Partitions in parallel: before segment merging a fetch answers from one produce range, a few records.
    const logs = await Promise.all(Array.from({ length: partitions }, (_, p) => this.readPartition(url, p, gaps)));
    logs.forEach((log, p) => {
      for (const r of log) {
        if (!seen.has(r.value)) seen.set(r.value, []);
        seen.get(r.value)!.push({ partition: p, offset: r.offset });
        records++;
      }
    });
    const missing: string[] = [];
    const misplaced: string[] = [];
    const duplicates: string[] = [];
    const refusedPresent: string[] = [];
    let acknowledged = 0;
    let unknownPresent = 0;
    const at = (places: { partition: number; offset: number }[]) => places.map((s) => `${s.partition}/${s.offset}`).join(', ');
    for (const [value, fate] of this.fates) {
      const places = seen.get(value) ?? [];
      if (places.length > 1) duplicates.push(`${value} at ${at(places)}`);
      if (fate.kind === 'acknowledged') {
        acknowledged++;
        if (places.length === 0) missing.push(`${value} acknowledged at ${fate.partition}/${fate.offset}`);
        else if (places[0].partition !== fate.partition || places[0].offset !== fate.offset) {
          misplaced.push(`${value} acknowledged at ${fate.partition}/${fate.offset}, found at ${at(places)}`);
        }
      } else if (places.length > 0) {
        if (fate.kind === 'refused') refusedPresent.push(`${value} (${fate.code}) at ${at(places)}`);
        else unknownPresent++;
      }
    }
    const strangers = [...seen.keys()].filter((v) => !this.fates.has(v)).map((v) => `${v} at ${at(seen.get(v)!)}`);
    return { partitions, records, acknowledged, unknownPresent, gaps, missing, misplaced, duplicates, refusedPresent, strangers };
  }
}

/** The violations of a log check, at most `limit` of each kind, for an assertion message. */
export function violations(check: LogCheck, limit = 5): string[] {
  const kinds = ['gaps', 'missing', 'misplaced', 'duplicates', 'refusedPresent', 'strangers'] as const;
  return kinds.flatMap((k) => (check[k].length === 0 ? [] : [`${check[k].length} ${k}: ${check[k].slice(0, limit).join('; ')}`]));
}

/** One line for logs: what a run did. */
export function describeRun(s: RunStats): string {
  const pct = s.requests === 0 ? 0 : (100 * s.firstTry) / s.requests;
  const errors = Object.entries(s.errors).map(([code, n]) => `${code} ${n}`).join(', ') || 'none';
  return (
    `${s.processes} process(es), ${s.clients} clients: ${s.requests} requests, ${pct.toFixed(1)}% first try ` +
    `(${s.firstTryPartial} more partly), ${s.attempts} attempts, ` +
    `${s.failed} failed, ${s.acknowledgedRecords} records acknowledged in ${s.seconds.toFixed(1)} s ` +
    `(${(s.acknowledgedRecords / s.seconds).toFixed(0)}/s); errors: ${errors}`
  );
}
