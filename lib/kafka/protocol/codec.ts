// Reads and writes any Kafka message by walking its schema (messages.ts, generated from Kafka's
// definitions), following the rules of Kafka's own generated code:
//   - a field exists in the versions its `versions` says; a decoded message carries every field
//     of the definition anyway, with its default where this version has none, so handlers never
//     branch on absence; the encoder writes the default for a field left out and ignores fields
//     this version does not have;
//   - in flexible versions strings, bytes and arrays are compact (unsigned varint length + 1, 0 is
//     null), every struct ends with a tagged-fields section, and fields with `taggedVersions`
//     travel there (written only when they differ from their default; unknown tags are skipped);
//   - nullable structs are preceded by an int8 (-1 null, 1 present);
//   - uuid values are strings in the canonical 36-character form.
import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';
import { MalformedRequestError } from './malformed-request.js';
import { inRange, type FieldSchema, type FieldType, type MessageSchema, type StructSchema } from './schema.js';

type Struct = Record<string, unknown>;

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The message's version is in its definition's range: the codec refuses any other. */
export function isValidVersion(schema: MessageSchema, version: number): boolean {
  return inRange(schema.validVersions, version);
}

export function isFlexible(schema: MessageSchema, version: number): boolean {
  return inRange(schema.flexibleVersions, version);
}

function isNullable(field: FieldSchema, version: number): boolean {
  return inRange(field.nullableVersions, version);
}

function isTagged(field: FieldSchema, version: number, flexible: boolean): boolean {
  return flexible && inRange(field.taggedVersions, version);
}

/** Whether the field's strings, bytes and arrays are compact in this version. */
function compactField(field: FieldSchema, version: number, flexible: boolean): boolean {
  if (field.flexibleVersions !== undefined) return inRange(field.flexibleVersions, version);
  return flexible;
}

// ---------------------------------------------------------------------------------------------
// Defaults

/** Immutable defaults (numbers, strings, booleans, null) by field: computed once. */
const SCALAR_DEFAULTS = new WeakMap<FieldSchema, unknown>();

/** The field's default, as Kafka's generated code gives it (a fresh object for arrays, structs and bytes). */
export function defaultValue(field: FieldSchema): unknown {
  if (SCALAR_DEFAULTS.has(field)) return SCALAR_DEFAULTS.get(field);
  const value = computeDefault(field);
  if (value === null || typeof value !== 'object') SCALAR_DEFAULTS.set(field, value);
  return value;
}

function computeDefault(field: FieldSchema): unknown {
  const d = field.default;
  const nullDefault = d === 'null' && field.nullableVersions !== undefined;
  const t = field.type;
  if (t.kind === 'array') return nullDefault ? null : [];
  if (t.kind === 'struct') return nullDefault ? null : defaultStruct(t.struct);
  switch (t.type) {
    case 'bool':
      return d === 'true';
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
    case 'float64':
      return d === undefined || d === '' ? 0 : Number(d);
    case 'int64':
      return d === undefined || d === '' ? 0n : BigInt(d);
    case 'string':
      return nullDefault ? null : (d ?? '');
    case 'bytes':
      return nullDefault ? null : Buffer.alloc(0);
    case 'records':
      return field.nullableVersions !== undefined ? null : Buffer.alloc(0);
    case 'uuid':
      return ZERO_UUID;
  }
}

/** A struct with every field at its default. */
export function defaultStruct(struct: StructSchema): Struct {
  const out: Struct = {};
  for (const f of struct.fields) out[f.name] = defaultValue(f);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** Decodes a whole message of this version; throws MalformedRequestError on bytes that do not fit. */
export function decodeMessage<T>(schema: MessageSchema, version: number, reader: ByteReader): T {
  if (!isValidVersion(schema, version)) throw new MalformedRequestError(`${schema.name} has no version ${version}`);
  return readStruct(schema, version, isFlexible(schema, version), reader) as T;
}

/** Decodes a message that must fill the buffer exactly (a request body, a response body). */
export function decodeExactly<T>(schema: MessageSchema, version: number, buffer: Buffer): T {
  const reader = new ByteReader(buffer);
  const value = decodeMessage<T>(schema, version, reader);
  if (reader.remaining !== 0) throw new MalformedRequestError(`${schema.name} v${version}: ${reader.remaining} bytes after the message`);
  return value;
}

function readStruct(struct: StructSchema, version: number, flexible: boolean, r: ByteReader): Struct {
  const out: Struct = {};
  for (const f of struct.fields) {
    if (!inRange(f.versions, version) || isTagged(f, version, flexible)) out[f.name] = defaultValue(f);
    else out[f.name] = readField(f, f.type, version, flexible, r);
  }
  if (flexible) readTaggedFields(struct, version, r, out);
  return out;
}

function readTaggedFields(struct: StructSchema, version: number, r: ByteReader, out: Struct): void {
  const count = r.uvarint();
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    if (tag <= previous) throw new MalformedRequestError(`tagged fields out of order: tag ${tag} after ${previous}`);
    previous = tag;
    const size = r.uvarint();
    const data = r.sub(size, `tagged field ${tag}`);
    const field = struct.fields.find((f) => f.tag === tag && inRange(f.taggedVersions, version) && inRange(f.versions, version));
    if (!field) continue; // an unknown tag: skipped, as Kafka skips it
    out[field.name] = readField(field, field.type, version, true, data);
    if (data.remaining !== 0) throw new MalformedRequestError(`tagged field ${tag}: ${data.remaining} bytes left over`);
  }
}

function readLength(field: FieldSchema, version: number, flexible: boolean, r: ByteReader, wide: boolean): number {
  if (compactField(field, version, flexible)) return r.uvarint() - 1;
  return wide ? r.int32() : r.int16();
}

function nullOrFail(field: FieldSchema, version: number): null {
  if (!isNullable(field, version)) throw new MalformedRequestError(`${field.name}: null in version ${version}, which allows none`);
  return null;
}

function readField(field: FieldSchema, type: FieldType, version: number, flexible: boolean, r: ByteReader): unknown {
  if (type.kind === 'array') {
    const count = readLength(field, version, flexible, r, true);
    if (count < 0) return nullOrFail(field, version);
    // Every element takes at least one byte (a struct without fields none, but no definition has
    // one), so a count beyond the bytes left is a lie: refuse it before allocating anything.
    if (count > r.remaining) throw new MalformedRequestError(`${field.name}: ${count} elements in ${r.remaining} bytes`);
    const items = new Array<unknown>(count);
    for (let i = 0; i < count; i++) items[i] = readField(field, type.items, version, flexible, r);
    return items;
  }
  if (type.kind === 'struct') {
    if (type !== field.type || !isNullable(field, version)) return readStruct(type.struct, version, flexible, r);
    const marker = r.int8();
    if (marker < 0) return null;
    return readStruct(type.struct, version, flexible, r);
  }
  switch (type.type) {
    case 'bool':
      return r.int8() !== 0;
    case 'int8':
      return r.int8();
    case 'int16':
      return r.int16();
    case 'uint16':
      return r.uint16();
    case 'int32':
      return r.int32();
    case 'uint32':
      return r.uint32();
    case 'int64':
      return r.int64();
    case 'float64':
      return r.float64();
    case 'uuid':
      return uuidString(r.bytes(16, 'uuid'));
    case 'string': {
      const n = readLength(field, version, flexible, r, false);
      if (n < 0) return nullOrFail(field, version);
      return r.utf8(n);
    }
    case 'bytes':
    case 'records': {
      const n = readLength(field, version, flexible, r, true);
      if (n < 0) return nullOrFail(field, version);
      return r.bytes(n, field.name);
    }
  }
}

function uuidString(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** Encodes a message of this version; fields left out get their defaults. */
export function encodeMessage(schema: MessageSchema, version: number, value: object, writer = new ByteWriter()): ByteWriter {
  if (!isValidVersion(schema, version)) throw new RangeError(`${schema.name} has no version ${version}`);
  writeStruct(schema, version, isFlexible(schema, version), value as Struct, writer);
  return writer;
}

export function encodeToBuffer(schema: MessageSchema, version: number, value: object): Buffer {
  return encodeMessage(schema, version, value).toBuffer();
}

/** The value to write: the given one, or the default when it is missing (or null where null is not allowed). */
function valueOf(field: FieldSchema, version: number, given: unknown): unknown {
  if (given === undefined) return defaultValue(field);
  if (given === null && !isNullable(field, version)) {
    const d = defaultValue(field);
    if (d !== null) return d;
    // The default is null, but this version has no null: the empty value of the type.
    if (field.type.kind === 'array') return [];
    if (field.type.kind === 'struct') return defaultStruct(field.type.struct);
    return field.type.type === 'string' ? '' : Buffer.alloc(0);
  }
  return given;
}

function writeStruct(struct: StructSchema, version: number, flexible: boolean, value: Struct | undefined, w: ByteWriter): void {
  const tagged: FieldSchema[] = [];
  for (const f of struct.fields) {
    if (!inRange(f.versions, version)) continue;
    if (isTagged(f, version, flexible)) {
      tagged.push(f);
      continue;
    }
    writeField(f, f.type, version, flexible, valueOf(f, version, value?.[f.name]), w);
  }
  if (!flexible) return;
  const present = tagged
    .filter((f) => value?.[f.name] !== undefined && !isDefault(f, value[f.name]))
    .sort((a, b) => a.tag! - b.tag!);
  w.uvarint(present.length);
  for (const f of present) {
    const sub = new ByteWriter();
    writeField(f, f.type, version, true, valueOf(f, version, value![f.name]), sub);
    w.uvarint(f.tag!);
    w.uvarint(sub.length);
    w.bytes(sub.toBuffer());
  }
}

function isDefault(field: FieldSchema, value: unknown): boolean {
  const d = defaultValue(field);
  if (value === d) return true;
  if (Array.isArray(value)) return Array.isArray(d) && value.length === 0;
  if (Buffer.isBuffer(value)) return Buffer.isBuffer(d) && d.equals(value);
  return false;
}

function writeLength(field: FieldSchema, version: number, flexible: boolean, w: ByteWriter, n: number, wide: boolean): void {
  if (compactField(field, version, flexible)) w.uvarint(n + 1);
  else if (wide) w.int32(n);
  else w.int16(n);
}

function writeField(field: FieldSchema, type: FieldType, version: number, flexible: boolean, value: unknown, w: ByteWriter): void {
  if (type.kind === 'array') {
    if (value === null) return writeLength(field, version, flexible, w, -1, true);
    const items = value as unknown[];
    writeLength(field, version, flexible, w, items.length, true);
    for (const item of items) writeField(field, type.items, version, flexible, item, w);
    return;
  }
  if (type.kind === 'struct') {
    if (type === field.type && isNullable(field, version)) {
      if (value === null) return w.int8(-1);
      w.int8(1);
    }
    return writeStruct(type.struct, version, flexible, (value ?? undefined) as Struct | undefined, w);
  }
  switch (type.type) {
    case 'bool':
      return w.int8(value ? 1 : 0);
    case 'int8':
      return w.int8(Number(value));
    case 'int16':
      return w.int16(Number(value));
    case 'uint16':
      return w.uint16(Number(value));
    case 'int32':
      return w.int32(Number(value));
    case 'uint32':
      return w.uint32(Number(value));
    case 'int64':
      return w.int64(BigInt(value as bigint | number));
    case 'float64':
      return w.float64(Number(value));
    case 'uuid': {
      const s = String(value);
      if (!UUID_PATTERN.test(s)) throw new RangeError(`${field.name}: not a uuid: '${s}'`);
      return w.bytes(Buffer.from(s.replace(/-/g, ''), 'hex'));
    }
    case 'string': {
      if (value === null) return writeLength(field, version, flexible, w, -1, false);
      const s = String(value);
      const n = Buffer.byteLength(s, 'utf8');
      if (n > 0x7fff) throw new RangeError(`${field.name}: a string of ${n} bytes exceeds Kafka's 32767`);
      writeLength(field, version, flexible, w, n, false);
      return w.utf8(s, n);
    }
    case 'bytes':
    case 'records': {
      if (value === null) return writeLength(field, version, flexible, w, -1, true);
      const b = value as Uint8Array;
      writeLength(field, version, flexible, w, b.length, true);
      return w.bytes(b);
    }
  }
}
