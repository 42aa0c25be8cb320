// One record inside a RecordBatch v2, as Kafka's DefaultRecord writes it:
//
//   length          varint   bytes that follow (attributes .. last header)
//   attributes      int8     unused, always 0
//   timestampDelta  varlong  timestamp - batch baseTimestamp
//   offsetDelta     varint   offset - batch baseOffset
//   keyLength       varint   -1 for a null key
//   key             bytes
//   valueLength     varint   -1 for a null value (a tombstone)
//   value           bytes
//   headerCount     varint
//   headers         [keyLength varint, key utf8, valueLength varint (-1 null), value bytes]
//
// Decoded keys, values and header values are subarrays that ALIAS the buffer they were decoded
// from (the batch, or its decompressed records section): no copy per record. Copy them if the
// source buffer will be reused.

import { CorruptRecordError } from './errors.js';
import { type ByteCursor, readVarint, readVarlong, sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from './varint.js';

export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

export interface RecordInput {
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: readonly RecordHeader[];
}

export interface DecodedRecord {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

/** Fields a record takes from its batch when decoded. */
export interface RecordContext {
  baseOffset: number;
  baseTimestamp: number;
  /** Set for LogAppendTime batches, where every record's timestamp is the batch maxTimestamp. */
  logAppendTime: number | null;
}

function sizeOfBytes(bytes: Uint8Array | null): number {
  return bytes === null ? 1 : sizeOfVarint(bytes.length) + bytes.length;
}

function writeBytes(buf: Buffer, bytes: Uint8Array | null, position: number): number {
  if (bytes === null) return writeVarint(buf, -1, position);
  position = writeVarint(buf, bytes.length, position);
  buf.set(bytes, position);
  return position + bytes.length;
}

function checkBytes(bytes: unknown, what: string): void {
  if (bytes !== null && !(bytes instanceof Uint8Array)) throw new TypeError(`${what} must be a Buffer or null`);
}

/** Size of the record body (everything after the length varint). Validates the input's types. */
export function sizeOfRecordBody(record: RecordInput, timestampDelta: number, offsetDelta: number): number {
  checkBytes(record.key, 'record key');
  checkBytes(record.value, 'record value');
  let size = 1 + sizeOfVarlong(timestampDelta) + sizeOfVarint(offsetDelta) + sizeOfBytes(record.key) + sizeOfBytes(record.value);
  const headers = record.headers ?? [];
  size += sizeOfVarint(headers.length);
  for (const header of headers) {
    if (typeof header.key !== 'string') throw new TypeError('record header key must be a string');
    checkBytes(header.value, `record header '${header.key}' value`);
    const keyLength = Buffer.byteLength(header.key, 'utf8');
    size += sizeOfVarint(keyLength) + keyLength + sizeOfBytes(header.value);
  }
  return size;
}

/** Writes a whole record (length prefix included); `bodySize` comes from sizeOfRecordBody. */
export function writeRecord(
  buf: Buffer,
  record: RecordInput,
  timestampDelta: number,
  offsetDelta: number,
  bodySize: number,
  position: number,
): number {
  position = writeVarint(buf, bodySize, position);
  buf[position++] = 0;
  position = writeVarlong(buf, timestampDelta, position);
  position = writeVarint(buf, offsetDelta, position);
  position = writeBytes(buf, record.key, position);
  position = writeBytes(buf, record.value, position);
  const headers = record.headers ?? [];
  position = writeVarint(buf, headers.length, position);
  for (const header of headers) {
    const keyLength = Buffer.byteLength(header.key, 'utf8');
    position = writeVarint(buf, keyLength, position);
    position += buf.write(header.key, position, keyLength, 'utf8');
    position = writeBytes(buf, header.value, position);
  }
  return position;
}

function readNullableBytes(buf: Buffer, cursor: ByteCursor, what: string): Buffer | null {
  const at = cursor.position;
  const length = readVarint(buf, cursor);
  if (length === -1) return null;
  if (length < -1) throw new CorruptRecordError(`invalid ${what} length ${length} at byte ${at}`);
  const start = cursor.position;
  const end = start + length;
  if (end > cursor.end) {
    throw new CorruptRecordError(`${what} of ${length} bytes at byte ${at} runs past the end of its record`);
  }
  cursor.position = end;
  return buf.subarray(start, end);
}

/** Header keys are short and nearly always ASCII: decode those without the UTF-8 decoder's call overhead. */
function readHeaderKey(buf: Buffer, start: number, end: number): string {
  if (end - start <= 16) {
    let key = '';
    for (let i = start; i < end; i++) {
      const c = buf[i];
      if (c >= 0x80) return buf.toString('utf8', start, end);
      key += String.fromCharCode(c);
    }
    return key;
  }
  return buf.toString('utf8', start, end);
}

/**
 * Decodes the record at `cursor.position`, never reading past `cursor.end` (the end of the
 * records section). Leaves the cursor after the record.
 */
export function readRecord(buf: Buffer, cursor: ByteCursor, context: RecordContext): DecodedRecord {
  const recordAt = cursor.position;
  const sectionEnd = cursor.end;
  const bodySize = readVarint(buf, cursor);
  const bodyStart = cursor.position;
  const bodyEnd = bodyStart + bodySize;
  if (bodySize < 0) throw new CorruptRecordError(`invalid record size ${bodySize} at byte ${recordAt}`);
  if (bodyEnd > sectionEnd) {
    throw new CorruptRecordError(`record of ${bodySize} bytes at byte ${recordAt} runs past the end of its batch`);
  }
  if (bodySize < 1) throw new CorruptRecordError(`truncated record at byte ${recordAt}`);
  // Every field below is bounded by the record's own declared length.
  cursor.end = bodyEnd;
  cursor.position++; // attributes: unused by record format v2
  const timestampDelta = readVarlong(buf, cursor);
  const offsetDelta = readVarint(buf, cursor);
  const key = readNullableBytes(buf, cursor, 'key');
  const value = readNullableBytes(buf, cursor, 'value');
  const headerCountAt = cursor.position;
  const headerCount = readVarint(buf, cursor);
  if (headerCount < 0) throw new CorruptRecordError(`invalid header count ${headerCount} at byte ${headerCountAt}`);
  // Each header takes at least two bytes, so a count beyond that is corrupt before allocating.
  if (headerCount * 2 > bodyEnd - cursor.position) {
    throw new CorruptRecordError(`header count ${headerCount} at byte ${headerCountAt} exceeds its record`);
  }
  const headers: RecordHeader[] = new Array(headerCount);
  for (let i = 0; i < headerCount; i++) {
    const keyAt = cursor.position;
    const keyLength = readVarint(buf, cursor);
    if (keyLength < 0) throw new CorruptRecordError(`invalid header key length ${keyLength} at byte ${keyAt}`);
    const keyStart = cursor.position;
    const keyEnd = keyStart + keyLength;
    if (keyEnd > bodyEnd) throw new CorruptRecordError(`header key at byte ${keyAt} runs past the end of its record`);
    cursor.position = keyEnd;
    headers[i] = { key: readHeaderKey(buf, keyStart, keyEnd), value: readNullableBytes(buf, cursor, 'header value') };
  }
  if (cursor.position !== bodyEnd) {
    throw new CorruptRecordError(
      `record at byte ${recordAt} declares ${bodySize} bytes but its fields take ${cursor.position - bodyStart}`,
    );
  }
  cursor.end = sectionEnd;
  const timestamp = context.logAppendTime ?? context.baseTimestamp + timestampDelta;
  const offset = context.baseOffset + offsetDelta;
  if (!Number.isSafeInteger(timestamp) || !Number.isSafeInteger(offset)) {
    throw new CorruptRecordError(`record at byte ${recordAt} has an offset or timestamp beyond the 2^53 range Sluice supports`);
  }
  return { offset, timestamp, key, value, headers };
}
