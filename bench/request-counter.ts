// Counts the requests a context's SDK clients send to the storage endpoints, by kind
// (`s3:PutObject`, `ddb:UpdateItem`, ...). The middleware sits in the `deserialize` step, inside the
// SDK's retry loop, so every HTTP attempt that reaches S3 or DynamoDB is counted, retries included:
// what AWS would bill. Used by the benchmark and by the tests that pin request counts. It also asks
// DynamoDB for the capacity each request consumed (ReturnConsumedCapacity, added at the start of the
// stack, changes nothing else) and sums the write and read units the endpoint reports.
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface RequestCounter {
  /** Requests per kind since the last reset. */
  readonly counts: Map<string, number>;
  /** Bytes sent in PutObject bodies since the last reset. */
  putBytes: number;
  /** Object keys of the GetObject requests since the last reset, in order. */
  readonly getKeys: string[];
  /** DynamoDB capacity units the endpoint reported consumed by writes (PutItem, UpdateItem, DeleteItem) and by reads. */
  writeUnits: number;
  readUnits: number;
  /** Requests of kinds starting with `prefix` (e.g. 's3:', 'ddb:Query'); all when omitted. */
  total(prefix?: string): number;
  /** The counts as a plain object, kinds sorted. */
  byKind(): Record<string, number>;
  reset(): void;
}

let installed = 0;
const WRITES = new Set(['ddb:PutItem', 'ddb:UpdateItem', 'ddb:DeleteItem', 'ddb:BatchWriteItem']);

export function countStorageRequests(clients: { readonly s3: S3Client; readonly ddb: DynamoDBDocumentClient }): RequestCounter {
  const counter: RequestCounter = {
    counts: new Map(),
    putBytes: 0,
    getKeys: [],
    writeUnits: 0,
    readUnits: 0,
    total: (prefix = '') => [...counter.counts].reduce((sum, [kind, n]) => (kind.startsWith(prefix) ? sum + n : sum), 0),
    byKind: () => Object.fromEntries([...counter.counts].sort(([a], [b]) => a.localeCompare(b))),
    reset: () => {
      counter.counts.clear();
      counter.putBytes = 0;
      counter.getKeys.length = 0;
      counter.writeUnits = 0;
      counter.readUnits = 0;
    },
  };
  const name = `sluiceRequestCounter${installed++}`;
  const install = (client: 's3' | 'ddb', stack: { add: (...args: never[]) => void }) => {
    const middleware =
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        const kind = `${client}:${(context.commandName ?? 'unknown').replace(/Command$/, '')}`;
        counter.counts.set(kind, (counter.counts.get(kind) ?? 0) + 1);
        if (kind === 's3:PutObject') counter.putBytes += Number(args.input.ContentLength ?? 0);
        if (kind === 's3:GetObject') counter.getKeys.push(String(args.input.Key));
        return next(args);
      };
    (stack.add as (m: unknown, o: unknown) => void)(middleware, { step: 'deserialize', name });
  };
  // Outermost: ask for the consumed capacity, and read it off the final output.
  type CapacityOutput = { output?: { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] } };
  (clients.ddb.middlewareStack.add as (m: unknown, o: unknown) => void)(
    (next: (args: { input: Record<string, unknown> }) => Promise<CapacityOutput>, context: { commandName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        const result = await next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
        const consumed = [result.output?.ConsumedCapacity ?? []].flat().reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
        if (WRITES.has(`ddb:${(context.commandName ?? '').replace(/Command$/, '')}`)) counter.writeUnits += consumed;
        else counter.readUnits += consumed;
        return result;
      },
    { step: 'initialize', name: `${name}Capacity` },
  );
  install('s3', clients.s3.middlewareStack as never);
  install('ddb', clients.ddb.middlewareStack as never);
  return counter;
}
