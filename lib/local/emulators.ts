// Embedded AWS emulators for `npm start` and the tests: dynalite (DynamoDB) and s3rver (S3),
// both real HTTP servers speaking the AWS wire protocols, so the SDK runs unmodified against them.
import { createCipheriv } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** s3rver accepts only this key pair unless another is registered in its account model. */
export const EMULATOR_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface Emulators {
  readonly dynamodbEndpoint: string;
  readonly s3Endpoint: string;
  close(): Promise<void>;
}

export interface EmulatorOptions {
  /** Directory for persisted data; omitted = in memory (DynamoDB) and a temp dir (S3). */
  readonly dataDir?: string;
  /** @default 0 (a free port) */
  readonly dynamodbPort?: number;
  /** @default 0 (a free port) */
  readonly s3Port?: number;
}

/**
 * s3rver encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3 (Node 17+) only offers
 * through its legacy provider: without `--openssl-legacy-provider` every listing of more than one
 * page fails with InternalError. The package scripts set it in NODE_OPTIONS; say so when it is off.
 */
export function s3rverCanPaginate(): boolean {
  try {
    createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
    return true;
  } catch {
    return false;
  }
}

export async function startEmulators(options: EmulatorOptions = {}): Promise<Emulators> {
  if (!s3rverCanPaginate()) {
    process.emitWarning('the embedded S3 emulator cannot page listings beyond 1000 keys on this Node without NODE_OPTIONS=--openssl-legacy-provider (the npm scripts set it)');
  }
  const dynalite = require('dynalite') as (opts: Record<string, unknown>) => Server;
  const S3rver = require('s3rver') as new (opts: Record<string, unknown>) => {
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  };
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');

  let dynamoPath: string | undefined;
  let s3Dir: string;
  if (options.dataDir) {
    dynamoPath = join(options.dataDir, 'dynamodb');
    s3Dir = join(options.dataDir, 's3');
    mkdirSync(dynamoPath, { recursive: true });
    mkdirSync(s3Dir, { recursive: true });
  } else {
    s3Dir = mkdtempSync(join(tmpdir(), 'sluice-s3-'));
  }

  // Latencies of 0 keep dynalite's table creation instant.
  const dynamo = dynalite({ path: dynamoPath, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    dynamo.once('error', reject);
    dynamo.listen(options.dynamodbPort ?? 0, '127.0.0.1', () => resolve());
  });
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: options.s3Port ?? 0,
    silent: true,
    directory: s3Dir,
    resetOnClose: !options.dataDir,
  });
  const s3Address = await s3.run();
  const dynamoAddress = dynamo.address() as AddressInfo;
  return {
    dynamodbEndpoint: `http://127.0.0.1:${dynamoAddress.port}`,
    s3Endpoint: `http://127.0.0.1:${s3Address.port}`,
    async close() {
      await s3.close();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
    },
  };
}
