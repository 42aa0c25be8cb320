// The sweep: deleting objects nothing references any more. Retention and merges only remove
// manifest items; crashed or fenced writers leave objects no committed item ever pointed at. One
// rule for every object: it is deleted when it is older than the grace period (S3 LastModified),
// no manifest references it, and a sweep saw it unreferenced at least the grace period ago (the
// first sighting is kept in MAINTENANCE / SWEEP#<folder>, lib/metadata/maintenance-items.ts). The mark makes
// the grace period start when an object became unreferenced rather than when it was written, so a
// fetch that read a manifest item just before retention or a merge removed it still finds the
// object.
//
//   - intake objects `<prefix>/_intake/<hour>/<ms>-<id>.log` (sweepIntakeObjects) hold ranges of
//     many partitions, of any topic (nothing relies on a request naming one topic): the
//     references are read from the STATE tails and SEG items of every partition of every topic,
//     AFTER the listing showed the object old (docs/ARCHITECTURE.md rule 3: every commit and spill put naming
//     it has landed, or never will, once it is a grace period old), and only when an old object
//     is found. Topics are listed after the objects: a topic created later cannot reference them.
//   - a topic's segment objects `<prefix>/<topic>-<id>/<p>/<base20>-...` (sweepTopic): the
//     references are the SEG items of the topic's partitions.
//   - folders of deleted topics (`<topic>-<id>/` whose id is no live topic's): a deletion a crash
//     interrupted is finished by sweepDeletedTopics.
import { DeleteObjectsCommand, ListObjectsV2Command, type _Object } from '@aws-sdk/client-s3';
import type { SluiceContext } from '../context.js';
import { deleteSweepMarks, getSweepMarks, putSweepMarks } from '../metadata/maintenance-items.js';
import { allSegmentItems, deleteAllSegmentItems } from '../metadata/manifest.js';
import { deletePartitionState, readPartitionState } from '../metadata/partition-state.js';
import { type TopicMetadata, listTopics } from '../metadata/topics.js';
import type { TopicRef } from '../metadata/types.js';
import { decodeEntries, rangesOf } from './manifest-entry.js';
import { forEachLimited } from './partition-snapshot.js';
import { INTAKE_FOLDER, intakeFolder, topicObjectPrefix } from './segment-name.js';

export interface SweepResult {
  readonly listedObjects: number;
  readonly deletedObjects: number;
  /** Unreferenced objects waiting for their grace period. */
  readonly pendingObjects: number;
  /** Whether the whole folder was listed (false when stopped early). */
  readonly complete: boolean;
}

const LIST_PAGE = 1000;
const DELETE_OBJECTS_LIMIT = 1000;
/** Marks kept per folder: bounded so the SWEEP item stays far below DynamoDB's 400 KB. */
const MAX_MARKS = 2000;
const READ_CONCURRENCY = 8;
/** A partition's own segment object, relative to the topic folder: `<partition>/<base20>-...`. */
const SEGMENT_OBJECT = /^(\d+)\/(\d{20})-/;
/** Marks of the intake objects live under this name (not a legal topic folder). */
const INTAKE_MARKS = '~intake';
/** A topic id (topics.ts newTopicId): 16 random bytes in base64url. */
const TOPIC_ID_LENGTH = 22;

/** The sweep marks' name for a topic's folder. */
const topicMarks = (topic: TopicRef) => `${topic.name}-${topic.id}`;

/** Deletes the objects, up to DeleteObjects' limit per request. */
export async function deleteObjects(ctx: SluiceContext, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += DELETE_OBJECTS_LIMIT) {
    const chunk = keys.slice(i, i + DELETE_OBJECTS_LIMIT).map((Key) => ({ Key }));
    await ctx.s3.send(new DeleteObjectsCommand({ Bucket: ctx.bucket, Delete: { Objects: chunk, Quiet: true } }));
  }
}

/** Every object key the partition's manifest references: STATE's tail (read first), then its SEG items. */
async function partitionReferences(ctx: SluiceContext, topic: TopicRef, partition: number, refs: Set<string>): Promise<void> {
  const state = await readPartitionState(ctx, topic, partition);
  if (!state) return;
  // An entry leaves the tail only after an item lists it: read in this order, none is missed.
  for (const range of decodeEntries(ctx, state.tailBase, state.tail)) refs.add(range.objectKey);
  for await (const item of allSegmentItems(ctx, topic, partition)) {
    for (const range of rangesOf(ctx, item)) refs.add(range.objectKey);
    if (item.indexKey) refs.add(item.indexKey);
    if (item.timeIndexKey) refs.add(item.timeIndexKey);
  }
}

/** Every object key any partition of the topics references. */
async function references(ctx: SluiceContext, topics: readonly (TopicRef & { readonly partitions: number })[], shouldStop: () => boolean): Promise<Set<string> | undefined> {
  const refs = new Set<string>();
  for (const topic of topics) {
    if (shouldStop()) return undefined;
    await forEachLimited(
      Array.from({ length: topic.partitions }, (_, p) => p),
      READ_CONCURRENCY,
      (p) => partitionReferences(ctx, topic, p, refs),
    );
  }
  return refs;
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

const oldEnough = (ctx: SluiceContext, object: _Object, now: number) => now - (object.LastModified?.getTime() ?? now) >= ctx.graceMs;

/** Keeps the oldest MAX_MARKS marks. */
function boundMarks(marks: Record<string, number>): Record<string, number> {
  const entries = Object.entries(marks);
  if (entries.length <= MAX_MARKS) return marks;
  return Object.fromEntries(entries.sort((a, b) => a[1] - b[1]).slice(0, MAX_MARKS));
}

/** One sweep of a topic's folder; stops listing when `shouldStop()` and resumes from scratch next time. */
export async function sweepTopic(
  ctx: SluiceContext,
  topic: TopicRef & { readonly partitions: number },
  shouldStop: () => boolean = () => false,
): Promise<SweepResult> {
  const folder = topicObjectPrefix(ctx.prefix, topic);
  const now = ctx.now();
  const old: string[] = [];
  let listedObjects = 0;
  let lastKey = '';
  let complete = false;
  let token: string | undefined;
  while (!shouldStop() && old.length < MAX_MARKS) {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, ContinuationToken: token, MaxKeys: LIST_PAGE }));
    for (const object of page.Contents ?? []) {
      if (!object.Key) continue;
      listedObjects++;
      lastKey = object.Key;
      // Only the partitions' own segment objects.
      if (SEGMENT_OBJECT.test(object.Key.slice(folder.length)) && oldEnough(ctx, object, now)) old.push(object.Key);
    }
    token = page.NextContinuationToken;
    if (!page.IsTruncated || !token) {
      complete = true;
      break;
    }
  }
  const marks = await getSweepMarks(ctx, topicMarks(topic));
  if (old.length === 0 && complete) {
    if (Object.keys(marks).length > 0) await putSweepMarks(ctx, topicMarks(topic), {});
    return { listedObjects, deletedObjects: 0, pendingObjects: 0, complete };
  }
  // Read after the listing: an item put later names an object written later (merge.ts gives up a
  // swap that took half the grace period).
  const refs = await references(ctx, [topic], shouldStop);
  if (!refs) return { listedObjects, deletedObjects: 0, pendingObjects: Object.keys(marks).length, complete: false };
  const { due, nextMarks } = ageMarks(ctx, old.filter((key) => !refs.has(key)), marks, now);
  // Marks of objects this sweep did not reach stay as they were.
  if (!complete) for (const [key, seen] of Object.entries(marks)) if (key > lastKey) nextMarks[key] ??= seen;
  await deleteObjects(ctx, due);
  const kept = boundMarks(nextMarks);
  await putSweepMarks(ctx, topicMarks(topic), kept);
  return { listedObjects, deletedObjects: due.length, pendingObjects: Object.keys(kept).length, complete };
}

/**
 * One sweep of the intake objects: those past the grace period that no STATE tail or SEG item of
 * any partition of any topic references are marked, and deleted once marked for the grace period.
 * The manifests are read only when there is an old object to decide on.
 */
export async function sweepIntakeObjects(ctx: SluiceContext, shouldStop: () => boolean = () => false): Promise<SweepResult> {
  const folder = intakeFolder(ctx.prefix);
  const now = ctx.now();
  const old: string[] = [];
  let listedObjects = 0;
  let complete = false;
  let token: string | undefined;
  // Keys sort by hour folder, so the oldest come first; stop at the first recent page.
  while (!shouldStop() && old.length < MAX_MARKS) {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, ContinuationToken: token, MaxKeys: LIST_PAGE }));
    let recent = false;
    for (const object of page.Contents ?? []) {
      listedObjects++;
      if (!object.Key) continue;
      if (oldEnough(ctx, object, now)) old.push(object.Key);
      else recent = true;
    }
    token = page.NextContinuationToken;
    if (!page.IsTruncated || !token || recent) {
      complete = !page.IsTruncated || !token;
      break;
    }
  }
  const marks = await getSweepMarks(ctx, INTAKE_MARKS);
  if (old.length === 0) {
    if (complete && Object.keys(marks).length > 0) await putSweepMarks(ctx, INTAKE_MARKS, {});
    return { listedObjects, deletedObjects: 0, pendingObjects: 0, complete };
  }
  // Topics read after the listing: one created since cannot reference an object that was old then.
  const refs = await references(ctx, await listTopics(ctx), shouldStop);
  if (!refs) return { listedObjects, deletedObjects: 0, pendingObjects: Object.keys(marks).length, complete: false };
  const { due, nextMarks } = ageMarks(ctx, old.filter((key) => !refs.has(key)), marks, now);
  await deleteObjects(ctx, due);
  const kept = boundMarks(nextMarks);
  await putSweepMarks(ctx, INTAKE_MARKS, kept);
  return { listedObjects, deletedObjects: due.length, pendingObjects: Object.keys(kept).length, complete };
}

/**
 * Deletes every object in the topic's folder (`<topic>-<id>/`, every partition, so also those
 * above the count) and the topic's sweep marks. Topic deletion calls it after the partitions'
 * items are gone; intake objects the topic used become unreferenced and go with the intake sweep.
 */
export async function deleteTopicObjects(ctx: SluiceContext, topic: TopicRef): Promise<number> {
  const folder = topicObjectPrefix(ctx.prefix, topic);
  let deleted = 0;
  // Each round deletes what it listed, so listing again from the start needs no continuation token.
  for (;;) {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, MaxKeys: LIST_PAGE }));
    const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
    if (keys.length === 0) break;
    await deleteObjects(ctx, keys);
    deleted += keys.length;
  }
  await deleteSweepMarks(ctx, topicMarks(topic));
  return deleted;
}

/** The topic a folder name `<topic>-<id>` stands for, or undefined when it is none. */
export function parseTopicFolder(name: string): TopicRef | undefined {
  if (name.length < TOPIC_ID_LENGTH + 2 || name[name.length - TOPIC_ID_LENGTH - 1] !== '-') return undefined;
  const id = name.slice(-TOPIC_ID_LENGTH);
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
  return { name: name.slice(0, -TOPIC_ID_LENGTH - 1), id };
}

/**
 * Finishes topic deletions a crash interrupted: a topic folder whose id is no live topic's loses
 * its partitions' STATE and SEG items (keys carry the id: no other incarnation shares them) and
 * its objects older than the grace period. Returns the folders found.
 */
export async function sweepDeletedTopics(ctx: SluiceContext, shouldStop: () => boolean = () => false): Promise<string[]> {
  const finished: string[] = [];
  let live: Set<string> | undefined;
  for await (const name of topicFolders(ctx)) {
    if (shouldStop()) break;
    if (name === INTAKE_FOLDER) continue;
    const topic = parseTopicFolder(name);
    if (!topic) continue;
    live ??= new Set((await listTopics(ctx)).map((t: TopicMetadata) => topicMarks(t)));
    if (live.has(name)) continue;
    await finishTopicDeletion(ctx, topic, ctx.now() - ctx.graceMs);
    finished.push(name);
  }
  return finished;
}

/** Names of the folders directly under the prefix (topic folders, and `_intake`). */
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

/** Removes the deleted topic's items (all of them) and its objects older than `cutoff`. */
async function finishTopicDeletion(ctx: SluiceContext, topic: TopicRef, cutoff: number): Promise<void> {
  const folder = topicObjectPrefix(ctx.prefix, topic);
  const old: string[] = [];
  const partitions = new Set<number>();
  let token: string | undefined;
  do {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, ContinuationToken: token, MaxKeys: LIST_PAGE }));
    for (const object of page.Contents ?? []) {
      if (!object.Key) continue;
      const p = /^(\d+)\//.exec(object.Key.slice(folder.length));
      if (p) partitions.add(Number(p[1]));
      if ((object.LastModified?.getTime() ?? ctx.now()) < cutoff) old.push(object.Key);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  for (const p of partitions) {
    await deletePartitionState(ctx, topic, p);
    await deleteAllSegmentItems(ctx, topic, p);
  }
  await deleteObjects(ctx, old);
  await deleteSweepMarks(ctx, topicMarks(topic));
}
