// Cleanup: deleting segment objects nothing references any more. Retention and compaction only
// remove manifest items; crashed or fenced writers leave objects no committed item ever pointed
// at. Both kinds are deleted here, by one rule, per topic:
//
//   a segment object <prefix>/<topic>/<p>/<base20>-... is deleted when no manifest entry of any
//   partition of the topic references it (a SEG item or a range it lists, as .log, .index or
//   .timeindex, or a range in STATE's tail), it is older than the
//   grace period (S3 LastModified), a sweep saw it unreferenced at least the grace period ago
//   (the first sighting is kept in MAINTENANCE / SWEEP#<topic>, see maintenance-store.ts), and
//   its base offset is below partition p's nextOffset read before the manifest (a writer at or
//   above nextOffset may still commit it).
//
// Shared produce objects (produce-object.ts: `<prefix>/_produce/<hour>/...`, one object per
// multi-partition produce request, referenced by several partitions' items of one topic) are
// swept by sweepSharedObjects with the same rule, the references read from every partition of
// every topic, so a shared object stays until the last item pointing at any range of it is gone
// (compaction rewrites those ranges into per-partition segments). The first-sighting mark makes
// the grace period start when an object became unreferenced rather than when it was written, so
// a fetch that read a manifest item just before retention or compaction removed it still finds
// the object.
//
// Deleting a topic deletes every partition folder under <prefix>/<topic>/; a deletion interrupted
// by a crash is finished by sweepDeletedTopics: topic folders with no topic item.
import { DeleteObjectsCommand, ListObjectsV2Command, type _Object } from '@aws-sdk/client-s3';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { segmentKey, stateKey, topicKey } from '../metadata/keys.js';
import { allSegmentItems } from '../metadata/manifest.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { TopicMetadata } from '../metadata/topics.js';
import type { PartitionState } from '../metadata/types.js';
import { deleteSweepMarks, getSweepMarks, putSweepMarks } from './maintenance-store.js';
import { forEachLimited } from './partition-snapshot.js';
import { sharedProduceFolder } from './produce-object.js';
import { decodeRanges, rangesOf } from './segment-range.js';

export interface SweepResult {
  readonly listedObjects: number;
  readonly deletedObjects: number;
  /** Unreferenced objects waiting for their grace period. */
  readonly pendingObjects: number;
  /** Whether the whole topic folder was listed (false when stopped early). */
  readonly complete: boolean;
}

const LIST_PAGE = 1000;
const DELETE_OBJECTS_LIMIT = 1000;
/** Marks kept per topic: bounded so the SWEEP item stays far below DynamoDB's 400 KB. */
const MAX_MARKS = 2000;
const READ_CONCURRENCY = 8;
/** A partition's own segment object, relative to the topic folder: `<partition>/<base20>-...`. */
const SEGMENT_OBJECT = /^(\d+)\/(\d{20})-/;
/** Anything in a partition folder of a topic folder (other folders there are not the topic's). */
const PARTITION_OBJECT = /^(\d+)\//;
/** Marks of the shared produce objects live under this pseudo topic (not a legal topic name). */
const SHARED_MARKS = '~shared';

export function topicObjectPrefix(prefix: string, topic: string): string {
  return `${prefix ? `${prefix}/` : ''}${topic}/`;
}

/** Deletes the objects, up to DeleteObjects' limit per request. */
export async function deleteObjects(ctx: SluiceContext, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += DELETE_OBJECTS_LIMIT) {
    const chunk = keys.slice(i, i + DELETE_OBJECTS_LIMIT).map((Key) => ({ Key }));
    await ctx.s3.send(new DeleteObjectsCommand({ Bucket: ctx.bucket, Delete: { Objects: chunk, Quiet: true } }));
  }
}

/**
 * Every object key the partition's manifest references: its SEG items (each listed range of a
 * spilled tail too) and STATE's tail, read after `state` (a range leaves the tail only for an item).
 */
async function partitionReferences(ctx: SluiceContext, state: PartitionState): Promise<string[]> {
  const { topic, partition } = state;
  const refs = decodeRanges(ctx, topic, partition, state.tail).map((r) => r.objectKey);
  for await (const item of allSegmentItems(ctx, topic, partition)) {
    for (const range of rangesOf(ctx, topic, partition, item)) refs.push(range.objectKey);
    if (item.indexKey) refs.push(item.indexKey);
    if (item.timeIndexKey) refs.push(item.timeIndexKey);
  }
  return refs;
}

/** Every object key any item of the topic's partitions references, and each partition's nextOffset (read first). */
async function topicReferences(
  ctx: SluiceContext,
  topic: string,
  partitions: number,
): Promise<{ refs: Set<string>; nextOffsets: Map<number, number> }> {
  const refs = new Set<string>();
  const nextOffsets = new Map<number, number>();
  await forEachLimited(
    Array.from({ length: partitions }, (_, p) => p),
    READ_CONCURRENCY,
    async (p) => {
      const state = await getPartitionState(ctx, topic, p);
      for (const key of await partitionReferences(ctx, state)) refs.add(key);
      nextOffsets.set(p, state.nextOffset);
    },
  );
  return { refs, nextOffsets };
}

/** One sweep of a topic's folder; stops listing when `shouldStop()` and resumes from scratch next time. */
export async function sweepTopic(
  ctx: SluiceContext,
  topic: string,
  partitions: number,
  shouldStop: () => boolean = () => false,
): Promise<SweepResult> {
  const folder = topicObjectPrefix(ctx.prefix, topic);
  const { refs, nextOffsets } = await topicReferences(ctx, topic, partitions);
  const marks = await getSweepMarks(ctx, topic);
  const now = ctx.now();
  const unreferenced: string[] = [];
  let listedObjects = 0;
  let lastKey = '';
  let complete = false;
  let token: string | undefined;
  while (!shouldStop()) {
    const page = await ctx.s3.send(
      new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, ContinuationToken: token, MaxKeys: LIST_PAGE }),
    );
    for (const object of page.Contents ?? []) {
      if (!object.Key) continue;
      listedObjects++;
      lastKey = object.Key;
      if (isCollectable(ctx, object, folder, refs, nextOffsets, now)) unreferenced.push(object.Key);
    }
    token = page.NextContinuationToken;
    if (!page.IsTruncated || !token) {
      complete = true;
      break;
    }
  }
  const { due, nextMarks } = ageMarks(ctx, unreferenced, marks, now);
  // Marks of objects this sweep did not reach stay as they were.
  if (!complete) for (const [key, seen] of Object.entries(marks)) if (key > lastKey) nextMarks[key] ??= seen;
  const kept = Object.entries(nextMarks)
    .sort((a, b) => a[1] - b[1])
    .slice(0, MAX_MARKS);
  await deleteObjects(ctx, due);
  await putSweepMarks(ctx, topic, Object.fromEntries(kept));
  return { listedObjects, deletedObjects: due.length, pendingObjects: kept.length, complete };
}

/**
 * Splits unreferenced objects into those due for deletion (first seen unreferenced at least the
 * grace period ago) and the first sightings to keep for the others.
 */
function ageMarks(
  ctx: SluiceContext,
  unreferenced: readonly string[],
  marks: Readonly<Record<string, number>>,
  now: number,
): { due: string[]; nextMarks: Record<string, number> } {
  const due: string[] = [];
  const nextMarks: Record<string, number> = {};
  for (const key of unreferenced) {
    const firstSeen = marks[key] ?? now;
    if (now - firstSeen >= ctx.graceMs) due.push(key);
    else nextMarks[key] = firstSeen;
  }
  return { due, nextMarks };
}

function isCollectable(
  ctx: SluiceContext,
  object: _Object,
  folder: string,
  refs: ReadonlySet<string>,
  nextOffsets: ReadonlyMap<number, number>,
  now: number,
): boolean {
  const key = object.Key!;
  if (refs.has(key)) return false;
  // Only the partitions' own segment objects: e.g. `_produce/<hour>/` under a topic named
  // `_produce` holds shared objects of every topic.
  const segment = SEGMENT_OBJECT.exec(key.slice(folder.length));
  if (!segment) return false;
  const nextOffset = nextOffsets.get(Number(segment[1]));
  // A partition added after the topic was read, or a writer that may still commit: keep.
  if (nextOffset === undefined || Number(segment[2]) >= nextOffset) return false;
  const written = object.LastModified?.getTime() ?? now;
  return now - written >= ctx.graceMs;
}

/**
 * One sweep of the shared produce objects: those past the grace period that no item of any
 * partition of any topic references are marked, and deleted once marked for the grace period.
 * The manifests are read only when there is an old object to decide on.
 */
export async function sweepSharedObjects(
  ctx: SluiceContext,
  topics: readonly TopicMetadata[],
  shouldStop: () => boolean = () => false,
): Promise<SweepResult> {
  const folder = sharedProduceFolder(ctx.prefix);
  const now = ctx.now();
  const old: string[] = [];
  let listedObjects = 0;
  let complete = false;
  let token: string | undefined;
  // Keys sort by hour folder, so the oldest come first; stop at the first recent page.
  while (!shouldStop() && old.length < MAX_MARKS) {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, ContinuationToken: token, MaxKeys: LIST_PAGE }));
    for (const object of page.Contents ?? []) {
      listedObjects++;
      if (object.Key && now - (object.LastModified?.getTime() ?? now) >= ctx.graceMs) old.push(object.Key);
    }
    token = page.NextContinuationToken;
    if (!page.IsTruncated || !token) {
      complete = true;
      break;
    }
  }
  const marks = await getSweepMarks(ctx, SHARED_MARKS);
  if (old.length === 0) {
    if (complete && Object.keys(marks).length > 0) await putSweepMarks(ctx, SHARED_MARKS, {});
    return { listedObjects, deletedObjects: 0, pendingObjects: 0, complete };
  }
  const refs = new Set<string>();
  for (const topic of topics) {
    if (shouldStop()) return { listedObjects, deletedObjects: 0, pendingObjects: Object.keys(marks).length, complete: false };
    await forEachLimited(
      Array.from({ length: topic.partitions }, (_, p) => p),
      READ_CONCURRENCY,
      async (p) => {
        const state = await getPartitionState(ctx, topic.name, p);
        for (const key of await partitionReferences(ctx, state)) if (key.startsWith(folder)) refs.add(key);
      },
    );
  }
  const { due, nextMarks } = ageMarks(ctx, old.filter((key) => !refs.has(key)), marks, now);
  await deleteObjects(ctx, due);
  await putSweepMarks(ctx, SHARED_MARKS, nextMarks);
  return { listedObjects, deletedObjects: due.length, pendingObjects: Object.keys(nextMarks).length, complete };
}

/**
 * Deletes every object in the topic's partition folders (`<topic>/<p>/`, whatever p, so also
 * partitions above the count or left by an older incarnation) and the topic's sweep marks.
 * Topic deletion calls it after the partitions' items are gone; shared produce objects the topic
 * used become unreferenced and go with the shared sweep.
 */
export async function deleteTopicObjects(ctx: SluiceContext, topic: string): Promise<number> {
  const folder = topicObjectPrefix(ctx.prefix, topic);
  let deleted = 0;
  let token: string | undefined;
  do {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, ContinuationToken: token, MaxKeys: LIST_PAGE }));
    const keys = (page.Contents ?? []).flatMap((o) => (o.Key && PARTITION_OBJECT.test(o.Key.slice(folder.length)) ? [o.Key] : []));
    await deleteObjects(ctx, keys);
    deleted += keys.length;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  await deleteSweepMarks(ctx, topic);
  return deleted;
}

/**
 * Finishes topic deletions a crash interrupted: a topic folder whose topic item is gone loses its
 * objects, partition STATE and manifest items. Only what is older than the grace period goes
 * (objects by LastModified, items by createdAt, STATE by lease expiry), so a topic re-created
 * under the same name meanwhile keeps everything it wrote.
 */
export async function sweepDeletedTopics(ctx: SluiceContext, shouldStop: () => boolean = () => false): Promise<string[]> {
  const finished: string[] = [];
  for await (const topic of topicFolders(ctx)) {
    if (shouldStop()) break;
    if (await topicExists(ctx, topic)) continue;
    if (await finishTopicDeletion(ctx, topic, ctx.now() - ctx.graceMs)) finished.push(topic);
  }
  return finished;
}

/** Names of the folders directly under the prefix (topics, and the shared `_produce`). */
async function* topicFolders(ctx: SluiceContext): AsyncGenerator<string> {
  const root = ctx.prefix ? `${ctx.prefix}/` : '';
  let token: string | undefined;
  let found = false;
  do {
    const page = await ctx.s3.send(
      new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: root || undefined, Delimiter: '/', ContinuationToken: token }),
    );
    for (const common of page.CommonPrefixes ?? []) {
      const name = common.Prefix?.slice(root.length, -1);
      if (name) {
        found = true;
        yield name;
      }
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  if (found) return;
  // Some emulators (s3rver) ignore the delimiter at the bucket root: skip from folder to folder
  // instead ('0' sorts right after '/', so `<name>0` is past every `<name>/...` key).
  // (A space sorts before every legal topic character; some emulators fail without StartAfter.)
  let after = `${root} `;
  for (;;) {
    // (No MaxKeys: s3rver fails a truncated root listing; only the first key is used.)
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: root || undefined, StartAfter: after }));
    const key = page.Contents?.[0]?.Key;
    if (!key) return;
    const slash = key.indexOf('/', root.length);
    if (slash < 0) {
      after = key;
      continue;
    }
    const name = key.slice(root.length, slash);
    yield name;
    after = `${root}${name}0`;
  }
}

// Read directly (not through topics.ts, which imports this module for topic deletion).
async function topicExists(ctx: SluiceContext, topic: string): Promise<boolean> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: topicKey(topic), ConsistentRead: true }));
  return out.Item !== undefined;
}

/** Removes what is older than `cutoff` in the deleted topic's partition folders; true if any was found. */
async function finishTopicDeletion(ctx: SluiceContext, topic: string, cutoff: number): Promise<boolean> {
  const folder = topicObjectPrefix(ctx.prefix, topic);
  const partitions: number[] = [];
  let token: string | undefined;
  do {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, Delimiter: '/', ContinuationToken: token }));
    for (const common of page.CommonPrefixes ?? []) {
      // Only partition folders: `_produce/<hour>/` holds shared objects of live topics.
      const p = common.Prefix ? PARTITION_OBJECT.exec(common.Prefix.slice(folder.length)) : null;
      if (p) partitions.push(Number(p[1]));
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  for (const p of partitions) {
    await conditionalDelete(ctx, stateKey(topic, p), 'attribute_not_exists(expiresAt) OR expiresAt < :cutoff', cutoff);
    for await (const item of allSegmentItems(ctx, topic, p)) {
      if (item.createdAt < cutoff) await conditionalDelete(ctx, segmentKey(topic, p, item.baseOffset), 'createdAt < :cutoff', cutoff);
    }
    const old: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await ctx.s3.send(
        new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: `${folder}${p}/`, ContinuationToken: pageToken, MaxKeys: LIST_PAGE }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key && (object.LastModified?.getTime() ?? ctx.now()) < cutoff) old.push(object.Key);
      }
      pageToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (pageToken);
    await deleteObjects(ctx, old);
  }
  if (partitions.length > 0) await deleteSweepMarks(ctx, topic);
  return partitions.length > 0;
}

async function conditionalDelete(ctx: SluiceContext, key: { pk: string; sk: string }, condition: string, cutoff: number): Promise<void> {
  try {
    await ctx.ddb.send(
      new DeleteCommand({ TableName: ctx.table, Key: key, ConditionExpression: condition, ExpressionAttributeValues: { ':cutoff': cutoff } }),
    );
  } catch (e) {
    if (!isConditionalCheckFailed(e)) throw e;
  }
}
