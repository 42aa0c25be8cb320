// lib/log/object-store.ts: one PutObject of immutable bytes to the context's bucket.
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../lib/context.js';
import { putObject } from '../../lib/log/object-store.js';

describe('putObject', () => {
  it('sends bucket, key, body and its length, as octet-stream', async () => {
    const s3 = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    const mock = mockClient(s3);
    mock.on(PutObjectCommand).resolves({});
    const ctx = createContext({ s3, ddb: undefined as never }, { bucket: 'bkt' });
    await putObject(ctx, 'a/b.log', Buffer.from('hello'));
    const input = mock.commandCalls(PutObjectCommand)[0].args[0].input;
    expect(input).toMatchObject({ Bucket: 'bkt', Key: 'a/b.log', ContentLength: 5, ContentType: 'application/octet-stream' });
    expect(Buffer.from(input.Body as Buffer).toString()).toBe('hello');
    mock.on(PutObjectCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDenied' }));
    await expect(putObject(ctx, 'k', Buffer.alloc(0))).rejects.toMatchObject({ name: 'AccessDenied' });
  });
});
