import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3rverCanPaginate } from '../../lib/local/emulators.js';
import { createTestContext } from '../support/storage.js';

describe('embedded S3 emulator', () => {
  it('pages a listing of more than 1000 keys (continuation tokens need the legacy OpenSSL provider)', async () => {
    expect(s3rverCanPaginate()).toBe(true);
    const ctx = await createTestContext();
    const keys = Array.from({ length: 1001 }, (_, i) => `t/0/${String(i).padStart(20, '0')}-x.log`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((Key) => ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key, Body: 'x' }))));
    }
    const listed: string[] = [];
    let token: string | undefined;
    do {
      const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: 't/', ContinuationToken: token }));
      listed.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
    } while (token);
    expect(listed).toEqual(keys);
  });
});
