// fast-check arbitraries for any Kafka message of the vendored definitions, at one version:
// every field the version has, with values of its type (null where the version allows it).
import fc from 'fast-check';
import { inRange, type FieldSchema, type FieldType, type StructSchema } from '../../lib/kafka/protocol/schema.js';

function primitiveArb(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'bool':
      return fc.boolean();
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'uint16':
      return fc.integer({ min: 0, max: 65535 });
    case 'int32':
      return fc.integer();
    case 'uint32':
      return fc.integer({ min: 0, max: 0xffffffff });
    case 'int64':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'float64':
      return fc.double({ noNaN: true });
    case 'string':
      // Names that exist in the fuzz tests' storage now and then, so handlers get past lookups.
      return fc.oneof({ arbitrary: fc.string({ maxLength: 12, unit: 'grapheme' }), weight: 3 }, { arbitrary: fc.constantFrom('orders', 'payments', 'g1', ''), weight: 1 });
    case 'uuid':
      return fc.uuid();
    default:
      return fc.uint8Array({ maxLength: 24 }).map((a) => Buffer.from(a));
  }
}

function typeArb(field: FieldSchema, type: FieldType, version: number, depth: number): fc.Arbitrary<unknown> {
  if (type.kind === 'array') return fc.array(typeArb(field, type.items, version, depth + 1), { maxLength: depth > 2 ? 1 : 3 });
  if (type.kind === 'struct') return structArb(type.struct, version, depth + 1);
  return primitiveArb(type.type);
}

export function structArb(struct: StructSchema, version: number, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of struct.fields) {
    const value = typeArb(f, f.type, version, depth);
    shape[f.name] = inRange(f.nullableVersions, version) ? fc.option(value, { nil: null, freq: 4 }) : value;
  }
  return fc.record(shape);
}

