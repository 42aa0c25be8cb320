// Generates lib/kafka/protocol/messages.ts from Kafka's message definitions vendored in
// lib/kafka/protocol/definitions/ (apache/kafka clients/src/main/resources/common/message/*.json):
// each message's schema as data (which lib/kafka/protocol/codec.ts walks to read and write it)
// and a TypeScript interface per message, with a namespace holding its nested structs under their
// JSON names (`ProduceRequest.TopicProduceData`).
//
// Usage: npm run generate:kafka            (writes the file)
//        tsx scripts/generate-kafka-protocol.ts --check   (exits 1 when the file is stale)
// test/kafka/generated.test.ts checks the committed file equals a fresh generation.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  MAX_VERSION,
  type FieldSchema,
  type FieldType,
  type MessageSchema,
  type PrimitiveType,
  type StructSchema,
  type VersionRange,
} from '../lib/kafka/protocol/schema.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFINITIONS_DIR = join(ROOT, 'lib/kafka/protocol/definitions');
export const OUTPUT_FILE = join(ROOT, 'lib/kafka/protocol/messages.ts');

const PRIMITIVES: readonly PrimitiveType[] = [
  'bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'string', 'bytes', 'records', 'uuid',
];

interface JsonField {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  flexibleVersions?: string;
  about?: string;
  fields?: JsonField[];
}

interface JsonMessage {
  name: string;
  type: 'request' | 'response' | 'header';
  apiKey?: number;
  validVersions: string;
  flexibleVersions: string;
  fields: JsonField[];
  commonStructs?: { name: string; versions?: string; fields: JsonField[] }[];
}

/** Kafka's definition files are JSON with `//` comments; strips them outside strings. */
export function stripComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out;
}

function parseVersions(spec: string | undefined, what: string): VersionRange | null {
  if (spec === undefined || spec === 'none') return null;
  let m = /^(\d+)\+$/.exec(spec);
  if (m) return [Number(m[1]), MAX_VERSION];
  m = /^(\d+)-(\d+)$/.exec(spec);
  if (m) return [Number(m[1]), Number(m[2])];
  m = /^(\d+)$/.exec(spec);
  if (m) return [Number(m[1]), Number(m[1])];
  throw new Error(`${what}: unreadable versions '${spec}'`);
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** The message's schema, with common structs resolved in place. */
export function messageSchema(json: JsonMessage): MessageSchema {
  const common = new Map((json.commonStructs ?? []).map((s) => [s.name, s]));
  const where = json.name;
  const structOf = (typeName: string, field: JsonField): StructSchema => {
    const fields = field.fields ?? common.get(typeName)?.fields;
    if (!fields) throw new Error(`${where}.${field.name}: unknown type '${typeName}'`);
    return { name: typeName, fields: fields.map(convertField) };
  };
  const typeOf = (typeName: string, field: JsonField): FieldType => {
    if (typeName.startsWith('[]')) return { kind: 'array', items: typeOf(typeName.slice(2), field) };
    if ((PRIMITIVES as readonly string[]).includes(typeName)) return { kind: 'primitive', type: typeName as PrimitiveType };
    return { kind: 'struct', struct: structOf(typeName, field) };
  };
  const convertField = (field: JsonField): FieldSchema => {
    const at = `${where}.${field.name}`;
    const versions = parseVersions(field.versions, at);
    if (!versions) throw new Error(`${at}: a field needs versions`);
    const out: { -readonly [K in keyof FieldSchema]: FieldSchema[K] } = {
      name: lowerFirst(field.name),
      type: typeOf(field.type, field),
      versions,
    };
    const nullable = parseVersions(field.nullableVersions, at);
    if (nullable) out.nullableVersions = nullable;
    const tagged = parseVersions(field.taggedVersions, at);
    if (tagged) {
      out.taggedVersions = tagged;
      if (field.tag === undefined) throw new Error(`${at}: tagged versions without a tag`);
    }
    if (field.tag !== undefined) out.tag = field.tag;
    if (field.default !== undefined) out.default = String(field.default);
    if (field.flexibleVersions !== undefined) out.flexibleVersions = parseVersions(field.flexibleVersions, at);
    return out;
  };
  const validVersions = parseVersions(json.validVersions, where);
  if (!validVersions) throw new Error(`${where}: no valid versions`);
  return {
    name: json.name,
    ...(json.apiKey !== undefined ? { apiKey: json.apiKey } : {}),
    type: json.type,
    validVersions,
    flexibleVersions: parseVersions(json.flexibleVersions, where),
    fields: json.fields.map(convertField),
  };
}

// ---------------------------------------------------------------------------------------------
// Printing

function q(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function printRange(r: VersionRange | null): string {
  return r === null ? 'null' : `[${r[0]}, ${r[1] === MAX_VERSION ? 'MAX_VERSION' : r[1]}]`;
}

function printType(t: FieldType, indent: string): string {
  switch (t.kind) {
    case 'primitive':
      return `{ kind: 'primitive', type: ${q(t.type)} }`;
    case 'array':
      return `{ kind: 'array', items: ${printType(t.items, indent)} }`;
    case 'struct':
      return `{ kind: 'struct', struct: ${printStruct(t.struct, indent)} }`;
  }
}

function printField(f: FieldSchema, indent: string): string {
  const parts = [`name: ${q(f.name)}`, `type: ${printType(f.type, indent)}`, `versions: ${printRange(f.versions)}`];
  if (f.nullableVersions) parts.push(`nullableVersions: ${printRange(f.nullableVersions)}`);
  if (f.taggedVersions) parts.push(`taggedVersions: ${printRange(f.taggedVersions)}`);
  if (f.tag !== undefined) parts.push(`tag: ${f.tag}`);
  if (f.default !== undefined) parts.push(`default: ${q(f.default)}`);
  if (f.flexibleVersions !== undefined) parts.push(`flexibleVersions: ${printRange(f.flexibleVersions)}`);
  return `{ ${parts.join(', ')} }`;
}

function printFields(fields: readonly FieldSchema[], indent: string): string {
  if (fields.length === 0) return '[]';
  const inner = indent + '  ';
  return `[\n${fields.map((f) => `${inner}${printField(f, inner)},\n`).join('')}${indent}]`;
}

function printStruct(s: StructSchema, indent: string): string {
  return `{ name: ${q(s.name)}, fields: ${printFields(s.fields, indent)} }`;
}

function printMessage(m: MessageSchema): string {
  const lines = [`export const ${m.name}Schema: MessageSchema = {`, `  name: ${q(m.name)},`];
  if (m.apiKey !== undefined) lines.push(`  apiKey: ${m.apiKey},`);
  lines.push(`  type: ${q(m.type)},`);
  lines.push(`  validVersions: ${printRange(m.validVersions)},`);
  lines.push(`  flexibleVersions: ${printRange(m.flexibleVersions)},`);
  lines.push(`  fields: ${printFields(m.fields, '  ')},`);
  lines.push('};');
  return lines.join('\n');
}

function rangeText(r: VersionRange): string {
  if (r[1] === MAX_VERSION) return `${r[0]}+`;
  return r[0] === r[1] ? `${r[0]}` : `${r[0]}-${r[1]}`;
}

function tsType(t: FieldType, message: string): string {
  switch (t.kind) {
    case 'primitive':
      switch (t.type) {
        case 'bool':
          return 'boolean';
        case 'int64':
          return 'bigint';
        case 'string':
        case 'uuid':
          return 'string';
        case 'bytes':
        case 'records':
          return 'Buffer';
        default:
          return 'number';
      }
    case 'array': {
      const inner = tsType(t.items, message);
      return /^[\w.]+$/.test(inner) ? `${inner}[]` : `(${inner})[]`;
    }
    case 'struct':
      return `${message}.${t.struct.name}`;
  }
}

function aboutOf(json: JsonField | undefined): string | undefined {
  return json?.about?.replace(/\*\//g, '* /').replace(/\s+/g, ' ').trim();
}

function printInterface(
  name: string,
  message: string,
  fields: readonly FieldSchema[],
  jsonFields: readonly JsonField[],
  optional: boolean,
  indent: string,
): string {
  const lines = [`${indent}export interface ${name} {`];
  for (const f of fields) {
    const json = jsonFields.find((j) => lowerFirst(j.name) === f.name);
    const notes = [`versions ${rangeText(f.versions)}`];
    if (f.nullableVersions) notes.push(`nullable ${rangeText(f.nullableVersions)}`);
    if (f.taggedVersions) notes.push(`tagged ${rangeText(f.taggedVersions)} (tag ${f.tag})`);
    if (f.default !== undefined) notes.push(`default ${f.default}`);
    const about = aboutOf(json);
    lines.push(`${indent}  /** ${about ? `${about} ` : ''}(${notes.join('; ')}) */`);
    const type = tsType(f.type, message) + (f.nullableVersions ? ' | null' : '');
    lines.push(`${indent}  ${f.name}${optional ? '?' : ''}: ${type};`);
  }
  lines.push(`${indent}}`);
  return lines.join('\n');
}

function nestedStructs(fields: readonly FieldSchema[], jsonFields: readonly JsonField[], common: Map<string, JsonField[]>): { struct: StructSchema; json: JsonField[] }[] {
  const out: { struct: StructSchema; json: JsonField[] }[] = [];
  const seen = new Set<string>();
  const walk = (fs: readonly FieldSchema[], js: readonly JsonField[]): void => {
    for (const f of fs) {
      let t = f.type;
      while (t.kind === 'array') t = t.items;
      if (t.kind !== 'struct') continue;
      const j = js.find((x) => lowerFirst(x.name) === f.name);
      const jf = j?.fields ?? common.get(t.struct.name) ?? [];
      if (!seen.has(t.struct.name)) {
        seen.add(t.struct.name);
        out.push({ struct: t.struct, json: jf });
      }
      walk(t.struct.fields, jf);
    }
  };
  walk(fields, jsonFields);
  return out;
}

function printTypes(m: MessageSchema, json: JsonMessage): string {
  // Responses are what handlers give the encoder: any field may be left out (it gets its default).
  const optional = m.type === 'response';
  const common = new Map((json.commonStructs ?? []).map((s) => [s.name, s.fields]));
  const out = [printInterface(m.name, m.name, m.fields, json.fields, optional, '')];
  const nested = nestedStructs(m.fields, json.fields, common);
  if (nested.length > 0) {
    out.push(`export namespace ${m.name} {`);
    out.push(nested.map((n) => printInterface(n.struct.name, m.name, n.struct.fields, n.json, optional, '  ')).join('\n'));
    out.push('}');
  }
  return out.join('\n');
}

export function readDefinitions(dir = DEFINITIONS_DIR): JsonMessage[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(stripComments(readFileSync(join(dir, f), 'utf8'))) as JsonMessage);
}

export function generate(dir = DEFINITIONS_DIR): string {
  const messages = readDefinitions(dir);
  const out: string[] = [
    '// GENERATED by scripts/generate-kafka-protocol.ts (npm run generate:kafka) from the Kafka message',
    '// definitions in lib/kafka/protocol/definitions/. Do not edit: change the generator or the definitions.',
    '//',
    "// Types: int64 → bigint; int8/int16/uint16/int32/uint32/float64 → number; string → string;",
    '// bytes and records → Buffer; uuid → string in the 36-character canonical form',
    "// (00000000-0000-0000-0000-000000000000 is Kafka's zero uuid); nullable fields add `| null`.",
    '// Decoded requests carry every field (absent ones get their default); response fields are optional',
    '// because the encoder writes the default of any field left out.',
    "import { MAX_VERSION, type MessageSchema } from './schema.js';",
    '',
  ];
  const schemas = messages.map((json) => ({ json, schema: messageSchema(json) }));
  for (const { json, schema } of schemas) {
    out.push(printTypes(schema, json), '');
    out.push(printMessage(schema), '');
  }
  const requests = schemas.filter((s) => s.schema.type === 'request').sort((a, b) => a.schema.apiKey! - b.schema.apiKey!);
  out.push('/** Each API key\'s request and response schema, and its name (`Produce`). */');
  out.push('export const API_SCHEMAS: ReadonlyMap<number, { readonly name: string; readonly request: MessageSchema; readonly response: MessageSchema }> = new Map([');
  for (const { schema } of requests) {
    const base = schema.name.replace(/Request$/, '');
    out.push(`  [${schema.apiKey}, { name: ${q(base)}, request: ${base}RequestSchema, response: ${base}ResponseSchema }],`);
  }
  out.push(']);', '');
  out.push('/** API keys by name. */');
  out.push('export const ApiKey = {');
  for (const { schema } of requests) out.push(`  ${schema.name.replace(/Request$/, '')}: ${schema.apiKey},`);
  out.push('} as const;', '');
  return out.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = generate();
  if (process.argv.includes('--check')) {
    const current = readFileSync(OUTPUT_FILE, 'utf8');
    if (current !== text) {
      console.error(`${OUTPUT_FILE} is stale: run npm run generate:kafka`);
      process.exit(1);
    }
  } else {
    writeFileSync(OUTPUT_FILE, text);
    console.log(`wrote ${OUTPUT_FILE}`);
  }
}
