// PUTs of immutable objects (intake objects, merged segments and their indexes). Keys are unique,
// so a PUT never replaces what a manifest points at, and a retried PUT writes the same bytes.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { SluiceContext } from '../context.js';

export async function putObject(ctx: SluiceContext, key: string, body: Buffer): Promise<void> {
  await ctx.s3.send(
    new PutObjectCommand({
      Bucket: ctx.bucket,
      Key: key,
      Body: body,
      ContentLength: body.length,
      ContentType: 'application/octet-stream',
    }),
  );
}
