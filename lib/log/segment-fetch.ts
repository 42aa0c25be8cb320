// Reading byte ranges of segment objects: adjacent ranges of one object become one ranged GET
// (a manifest item may share its object with others), ranges of different objects are fetched in
// parallel. Sibling `.index` objects are immutable once committed, so they are cached by key
// (bounded). A missing object means the reader's view is stale (retention or a segment merge removed
// it after the grace period): StaleViewError tells the caller to refresh STATE and the manifest.
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { SluiceError } from '../errors.js';
import { type SluiceContext, cacheSlot } from '../context.js';
import { isNoSuchKey } from '../metadata/aws-errors.js';

export class StaleViewError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaleViewError';
  }
}

export interface ByteRange {
  readonly objectKey: string;
  /** Absolute byte positions in the object, end exclusive. */
  readonly start: number;
  readonly end: number;
}

export async function getObjectRange(ctx: SluiceContext, range: ByteRange): Promise<Buffer> {
  try {
    const out = await ctx.s3.send(
      new GetObjectCommand({ Bucket: ctx.bucket, Key: range.objectKey, Range: `bytes=${range.start}-${range.end - 1}` }),
    );
    const body = Buffer.from(await out.Body!.transformToByteArray());
    if (body.length !== range.end - range.start) {
      throw new SluiceError(
        'CORRUPT_MESSAGE',
        `segment object ${range.objectKey} is shorter than its manifest range: asked ${range.end - range.start} bytes at ${range.start}, got ${body.length}`,
      );
    }
    return body;
  } catch (e) {
    if (isNoSuchKey(e)) throw new StaleViewError(`segment object ${range.objectKey} is gone`);
    throw e;
  }
}

/** Fetches every range (in the given order), one GET per run of adjacent ranges of one object. */
export async function fetchRanges(ctx: SluiceContext, ranges: readonly ByteRange[]): Promise<Buffer[]> {
  const runs: { range: ByteRange; members: number[] }[] = [];
  ranges.forEach((r, i) => {
    const last = runs[runs.length - 1];
    if (last && last.range.objectKey === r.objectKey && last.range.end === r.start) {
      last.range = { ...last.range, end: r.end };
      last.members.push(i);
    } else {
      runs.push({ range: r, members: [i] });
    }
  });
  const out: Buffer[] = new Array(ranges.length);
  await Promise.all(
    runs.map(async (run) => {
      const body = await getObjectRange(ctx, run.range);
      for (const i of run.members) {
        out[i] = body.subarray(ranges[i].start - run.range.start, ranges[i].end - run.range.start);
      }
    }),
  );
  return out;
}

const MAX_CACHED_INDEXES = 1024;
/**
 * `.index` objects by bucket and key, the context's `offsetIndexes` cache slot (lib/context.ts):
 * an index object is never rewritten (a merge writes new keys), so entries never go stale; the
 * oldest goes past MAX_CACHED_INDEXES.
 */
const OFFSET_INDEXES = cacheSlot('offsetIndexes', () => new Map<string, Buffer>());

/** The whole `.index` object, from the process cache when seen before. */
export async function getOffsetIndexObject(ctx: SluiceContext, indexKey: string): Promise<Buffer> {
  const indexCache = ctx.caches.get(OFFSET_INDEXES);
  const cacheKey = `${ctx.bucket}/${indexKey}`;
  const hit = indexCache.get(cacheKey);
  if (hit) return hit;
  let body: Buffer;
  try {
    const out = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: indexKey }));
    body = Buffer.from(await out.Body!.transformToByteArray());
  } catch (e) {
    if (isNoSuchKey(e)) throw new StaleViewError(`index object ${indexKey} is gone`);
    throw e;
  }
  indexCache.set(cacheKey, body);
  if (indexCache.size > MAX_CACHED_INDEXES) indexCache.delete(indexCache.keys().next().value as string);
  return body;
}
