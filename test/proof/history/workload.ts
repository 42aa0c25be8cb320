// The clients of a history run: concurrent plain producers, idempotent producers (ids from
// POST /v1/producers, each batch re-sent unchanged with its sequence until acknowledged) and
// fetchers, all recording into one History. `server()` picks the process a request goes to (one
// process, or any of several sharing one store); a process being killed or restarting answers
// ECONNREFUSED, and the client just tries again.
import { setTimeout as sleep } from 'node:timers/promises';
import { History, type ProduceOp } from './history.js';

export interface Target {
  readonly url: string;
  readonly index: number;
}

export interface Workload {
  readonly history: History;
  stop(): Promise<void>;
}

export const TOPIC = 'hist';
export const JSON_HEADERS = { 'content-type': 'application/json' };

/** One produce of `values` to `partition`, recorded. */
export function produce(history: History, target: Target, client: number, partition: number, values: readonly string[], producer?: { producerId: number; producerEpoch: number; baseSequence: number }) {
  const body = {
    records: values.map((value) => ({ value, partition })),
    ...(producer && { producerId: producer.producerId, producerEpoch: producer.producerEpoch, sequences: [{ partition, baseSequence: producer.baseSequence }] }),
  };
  return history.call({ kind: 'produce', client, partition, values, idempotent: Boolean(producer), server: target.index }, () =>
    fetch(`${target.url}/v1/topics/${TOPIC}/records`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) }),
  ) as Promise<ProduceOp>;
}

export function startWorkload(server: () => Target, partitions: number, clients = { plain: 3, idempotent: 2, fetchers: 2 }): Workload {
  const history = new History();
  let running = true;
  const hwm = Array.from({ length: partitions }, () => 0);

  const plainProducer = async (client: number) => {
    for (let n = 0; running; n++) {
      const partition = n % partitions;
      const values = Array.from({ length: 1 + (n % 3) }, (_, i) => `c${client}:${n}:${i}`);
      const op = await produce(history, server(), client, partition, values);
      if (op.outcome !== 'ok') await sleep(50);
    }
  };

  const idempotentProducer = async (client: number) => {
    let producer: { producerId: number; producerEpoch: number } | undefined;
    while (!producer && running) {
      const res = await fetch(`${server().url}/v1/producers`, { method: 'POST', headers: JSON_HEADERS, body: '{}' }).catch(() => undefined);
      if (res?.status === 200 || res?.status === 201) producer = (await res.json()) as typeof producer;
      else await sleep(50);
    }
    const sequence = Array.from({ length: partitions }, () => 0);
    for (let n = 0; running && producer; n++) {
      const partition = n % partitions;
      const values = Array.from({ length: 2 }, (_, i) => `i${client}:${n}:${i}`);
      // Re-send the same batch with the same sequence until it is acknowledged.
      for (let tries = 0; ; tries++) {
        const op = await produce(history, server(), client, partition, values, { ...producer, baseSequence: sequence[partition] });
        if (op.outcome === 'ok') break;
        if (op.outcome === 'fail' && !String(op.error).startsWith('ECONN')) throw new Error(`idempotent batch ${values[0]} refused: ${op.error}`);
        await sleep(50);
        if (!running && tries > 100) return;
      }
      sequence[partition] += values.length;
    }
  };

  const fetcher = async (client: number) => {
    for (let n = 0; running; n++) {
      const partition = n % partitions;
      const offset = Math.floor(Math.random() * (hwm[partition] + 1));
      const target = server();
      const op = await history.call({ kind: 'fetch', client, partition, offset, server: target.index }, () =>
        fetch(`${target.url}/v1/topics/${TOPIC}/partitions/${partition}/records?offset=${offset}&maxBytes=4000`, { signal: AbortSignal.timeout(15_000) }),
      );
      if (op.kind === 'fetch' && op.outcome === 'ok') hwm[partition] = Math.max(hwm[partition], op.highWatermark!);
      else await sleep(50);
    }
  };

  let c = 0;
  const all = [
    ...Array.from({ length: clients.plain }, () => plainProducer(c++)),
    ...Array.from({ length: clients.idempotent }, () => idempotentProducer(c++)),
    ...Array.from({ length: clients.fetchers }, () => fetcher(c++)),
  ];
  return {
    history,
    stop: async () => {
      running = false;
      await Promise.all(all);
    },
  };
}

/** The whole log of a partition, read after the run. */
export async function readFinalLog(url: string, partition: number): Promise<string[]> {
  const log: string[] = [];
  for (;;) {
    const res = await fetch(`${url}/v1/topics/${TOPIC}/partitions/${partition}/records?offset=${log.length}&maxBytes=1000000`);
    const body = (await res.json()) as { records: { offset: number; value: string }[]; nextOffset: number; highWatermark: number };
    if (res.status !== 200) throw new Error(`final read of p${partition} at ${log.length}: ${res.status} ${JSON.stringify(body)}`);
    body.records.forEach((r, i) => {
      if (r.offset !== log.length + i) throw new Error(`final read of p${partition}: offset ${r.offset} where ${log.length + i} was due`);
    });
    log.push(...body.records.map((r) => r.value));
    if (body.nextOffset >= body.highWatermark) return log;
  }
}

/**
 * Right after a process (re)started: one produce to it must be acknowledged at once — appends take
 * no lease, so nothing waits for the killed process's leases to expire. Returns the milliseconds
 * it took (the request is part of the history).
 */
export async function firstProduceAfterStart(history: History, target: Target, client: number, partition: number): Promise<{ ms: number; op: ProduceOp }> {
  const started = performance.now();
  const op = await produce(history, target, client, partition, [`s${client}:${Math.round(started)}:0`]);
  return { ms: performance.now() - started, op };
}
