// The error codes a decoded message carries: every `errorCode` field of the version (fields the
// version lacks are decoded as defaults and are no answer of the gateway's).
import { inRange, type FieldType, type StructSchema } from '../../lib/kafka/protocol/schema.js';

export function errorCodesOf(struct: StructSchema, version: number, value: unknown, out: number[] = []): number[] {
  if (!value || typeof value !== 'object') return out;
  for (const f of struct.fields) {
    if (!inRange(f.versions, version)) continue;
    const v = (value as Record<string, unknown>)[f.name];
    if (f.name === 'errorCode' && typeof v === 'number') out.push(v);
    else walk(f.type, version, v, out);
  }
  return out;
}

function walk(type: FieldType, version: number, value: unknown, out: number[]): void {
  if (value === null || value === undefined) return;
  if (type.kind === 'array') for (const item of value as unknown[]) walk(type.items, version, item, out);
  else if (type.kind === 'struct') errorCodesOf(type.struct, version, value, out);
}
