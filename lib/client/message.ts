// Messages as users write them (kafkajs shapes: Buffer or string keys/values, headers as an object
// or a list) and as the wire carries them (README.md: UTF-8 strings, or base64 for the whole request
// when any byte string is not text). A request goes base64 only when it must, so the common
// all-string case stays readable on the wire.
import type { WireRecord } from './wire.js';

export type Bytes = Buffer | string;

export type HeaderValue = Bytes | null | undefined;

/** kafkajs' `IHeaders` object form, or an ordered list (keys may repeat). */
export type MessageHeaders = Readonly<Record<string, HeaderValue | readonly Bytes[]>> | readonly { key: string; value: HeaderValue }[];

export interface Message {
  readonly key?: Bytes | null;
  readonly value: Bytes | null;
  readonly headers?: MessageHeaders;
  /** Explicit partition; otherwise the producer's partitioner picks one. */
  readonly partition?: number;
  /** ms since epoch, number or numeric string (kafkajs uses strings). @default the broker's append time */
  readonly timestamp?: number | string;
}

/** Per-record framing overhead used in size estimates (RecordBatch v2 varints, attributes, deltas). */
const RECORD_OVERHEAD = 24;

export function headerList(headers: MessageHeaders | undefined): { key: string; value: HeaderValue }[] {
  if (!headers) return [];
  if (Array.isArray(headers)) return headers as { key: string; value: HeaderValue }[];
  const out: { key: string; value: HeaderValue }[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, HeaderValue | readonly Bytes[]>)) {
    if (Array.isArray(value)) for (const v of value) out.push({ key, value: v as Bytes });
    else out.push({ key, value: value as HeaderValue });
  }
  return out;
}

function byteLength(b: HeaderValue): number {
  if (b === null || b === undefined) return 0;
  return typeof b === 'string' ? Buffer.byteLength(b) : b.length;
}

/** Estimated bytes a message occupies in the producer buffer and in a RecordBatch. */
export function messageSize(message: Message): number {
  let size = RECORD_OVERHEAD + byteLength(message.key) + byteLength(message.value);
  for (const h of headerList(message.headers)) size += Buffer.byteLength(h.key) + byteLength(h.value) + 2;
  return size;
}

/** The bytes a key hashes over (Kafka's default partitioner hashes the serialized key). */
export function keyBytes(key: Bytes | null | undefined): Buffer | null {
  if (key === null || key === undefined) return null;
  return typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
}

function isText(b: Buffer): boolean {
  // Round-trips only when the bytes are valid UTF-8.
  return Buffer.from(b.toString('utf8'), 'utf8').equals(b);
}

/** 'base64' when any key, value or header value is a Buffer that is not valid UTF-8. */
export function chooseEncoding(messages: readonly Message[]): 'utf8' | 'base64' {
  const binary = (b: HeaderValue) => Buffer.isBuffer(b) && !isText(b);
  for (const m of messages) {
    if (binary(m.key) || binary(m.value)) return 'base64';
    for (const h of headerList(m.headers)) if (binary(h.value)) return 'base64';
  }
  return 'utf8';
}

function encode(b: HeaderValue, encoding: 'utf8' | 'base64'): string | null {
  if (b === null || b === undefined) return null;
  if (encoding === 'utf8') return typeof b === 'string' ? b : b.toString('utf8');
  return (typeof b === 'string' ? Buffer.from(b, 'utf8') : b).toString('base64');
}

export function toWire(message: Message, partition: number | undefined, encoding: 'utf8' | 'base64'): WireRecord {
  const headers = headerList(message.headers);
  return {
    value: encode(message.value, encoding),
    ...(message.key !== undefined && message.key !== null && { key: encode(message.key, encoding) }),
    ...(headers.length > 0 && { headers: headers.map((h) => ({ key: h.key, value: encode(h.value, encoding) })) }),
    ...(partition !== undefined && { partition }),
    ...(message.timestamp !== undefined && { timestamp: Number(message.timestamp) }),
  };
}
