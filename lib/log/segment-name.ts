// Object naming, as Kafka's tiered storage names remote segments:
//
//   <prefix>/<topic>-<topicId>/<partition>/<baseOffset, 20 digits>-<segmentId><suffix>   segments
//   <prefix>/_intake/<yyyy-mm-ddTHH>/<ms>-<16 hex>.log                                     intake objects
//
// with no leading slash when the prefix is ''. A segment is written by the partition leader's
// merge; its 20-digit base offset makes a partition's objects list in offset order and the topic
// id keeps a re-created topic's objects apart from its predecessor's. An intake object holds one
// produce request's batches for all its partitions, with offsets not yet known (append.ts); the
// hour folder lets the sweep list old ones first. Every key is unique (random ids), so no write
// ever replaces an object someone's manifest points at.
import { randomBytes } from 'node:crypto';
import { padOffset } from '../metadata/keys.js';
import type { TopicRef } from '../metadata/types.js';

export type SegmentSuffix = '.log' | '.index' | '.timeindex';

export const INTAKE_FOLDER = '_intake';

/** Folder holding one topic's objects, with the trailing slash. */
export function topicObjectPrefix(prefix: string, topic: TopicRef): string {
  return `${prefix ? `${prefix}/` : ''}${topic.name}-${topic.id}/`;
}

/** Folder holding one partition's objects, with the trailing slash (so `t/1/` never matches `t/10/`). */
export function partitionObjectPrefix(prefix: string, topic: TopicRef, partition: number): string {
  return `${topicObjectPrefix(prefix, topic)}${partition}/`;
}

export function segmentObjectKey(
  prefix: string,
  topic: TopicRef,
  partition: number,
  baseOffset: number,
  segmentId: string,
  suffix: SegmentSuffix,
): string {
  return `${partitionObjectPrefix(prefix, topic, partition)}${padOffset(baseOffset)}-${segmentId}${suffix}`;
}

/** A fresh segment id: the merging leader's epoch (for humans reading a bucket) and 64 random bits. */
export function newSegmentId(leaderEpoch: number): string {
  return `${leaderEpoch}-${randomBytes(8).toString('hex')}`;
}

/** Folder of the intake objects, with the trailing slash. */
export function intakeFolder(prefix: string): string {
  return `${prefix ? `${prefix}/` : ''}${INTAKE_FOLDER}/`;
}

/** `<folder><yyyy-mm-ddTHH of ms>/<ms>-<id>.log`: the hour folder follows from the name (manifest-entry.ts relies on it). */
export function intakeObjectKey(prefix: string, ms: number, id = randomBytes(8).toString('hex')): string {
  const hour = new Date(ms).toISOString().slice(0, 13);
  return `${intakeFolder(prefix)}${hour}/${ms}-${id}.log`;
}

const INTAKE_NAME = /^(\d{4}-\d{2}-\d{2}T\d{2})\/(\d+)-([0-9a-f]{16})\.log$/;

/** The time and id of an intake object's key, or undefined when `key` is not one. */
export function parseIntakeObjectKey(prefix: string, key: string): { ms: number; id: string } | undefined {
  const folder = intakeFolder(prefix);
  if (!key.startsWith(folder)) return undefined;
  const m = INTAKE_NAME.exec(key.slice(folder.length));
  if (!m || intakeObjectKey(prefix, Number(m[2]), m[3]) !== key) return undefined;
  return { ms: Number(m[2]), id: m[3] };
}
