// decode(encode(x)) is x for every message of the vendored definitions in every valid version,
// flexible ones included (compact fields, tagged fields), with fields the version lacks read back
// as their defaults; and flexible bytes checked by hand against Kafka's protocol guide.
import fc from 'fast-check';
import { structArb } from './message-arbitrary.js';
import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../lib/kafka/protocol/byte-reader.js';
import { decodeExactly, decodeMessage, defaultValue, encodeToBuffer } from '../../lib/kafka/protocol/codec.js';
import { MalformedRequestError } from '../../lib/kafka/protocol/malformed-request.js';
import { decodeRequestHeader } from '../../lib/kafka/protocol/headers.js';
import * as messages from '../../lib/kafka/protocol/messages.js';
import { inRange, type FieldSchema, type FieldType, type MessageSchema, type StructSchema } from '../../lib/kafka/protocol/schema.js';

const SCHEMAS = Object.values(messages).filter((v): v is MessageSchema => typeof v === 'object' && v !== null && 'validVersions' in v);

/** What decoding gives back: fields the version lacks hold their defaults. */
function expected(struct: StructSchema, version: number, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of struct.fields) {
    if (!inRange(f.versions, version)) out[f.name] = normalizeDefault(defaultValue(f), f, version);
    else out[f.name] = expectedValue(f, f.type, version, value[f.name]);
  }
  return out;
}

function normalizeDefault(d: unknown, f: FieldSchema, version: number): unknown {
  return d !== null && typeof d === 'object' && !Array.isArray(d) && !Buffer.isBuffer(d) && f.type.kind === 'struct' ? expected(f.type.struct, version, d as Record<string, unknown>) : d;
}

function expectedValue(f: FieldSchema, type: FieldType, version: number, v: unknown): unknown {
  if (v === null) return null;
  if (type.kind === 'array') return (v as unknown[]).map((x) => expectedValue(f, type.items, version, x));
  if (type.kind === 'struct') return expected(type.struct, version, v as Record<string, unknown>);
  return v;
}

function versionsOf(schema: MessageSchema): number[] {
  const out: number[] = [];
  for (let v = schema.validVersions[0]; v <= schema.validVersions[1]; v++) out.push(v);
  return out;
}

describe('codec round trip', () => {
  for (const schema of SCHEMAS) {
    it(`${schema.name}, every version`, () => {
      for (const version of versionsOf(schema)) {
        fc.assert(
          fc.property(structArb(schema, version), (value) => {
            const bytes = encodeToBuffer(schema, version, value);
            const decoded = decodeExactly(schema, version, bytes);
            expect(decoded).toEqual(expected(schema, version, value));
            expect(encodeToBuffer(schema, version, decoded as object).equals(bytes)).toBe(true);
          }),
          { numRuns: 15 },
        );
      }
    });
  }
});

describe('flexible versions, byte for byte', () => {
  it('reads the ApiVersions v3 request librdkafka sends (request header v2)', () => {
    const frame = Buffer.from([
      0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x07, // api key 18, version 3, correlation id 7
      0x00, 0x04, 0x6b, 0x63, 0x61, 0x74, // client id 'kcat' (int16 length even in header v2)
      0x00, // header tagged fields
      0x0b, ...Buffer.from('librdkafka'), // compact string: length + 1
      0x06, ...Buffer.from('2.0.2'),
      0x00, // body tagged fields
    ]);
    const reader = new ByteReader(frame);
    expect(decodeRequestHeader(reader)).toEqual({ requestApiKey: 18, requestApiVersion: 3, correlationId: 7, clientId: 'kcat' });
    expect(decodeExactly(messages.ApiVersionsRequestSchema, 3, frame.subarray(reader.position))).toEqual({
      clientSoftwareName: 'librdkafka',
      clientSoftwareVersion: '2.0.2',
    });
  });

  it('writes compact arrays and tagged fields only when they differ from the default', () => {
    const plain = encodeToBuffer(messages.ApiVersionsResponseSchema, 3, { errorCode: 0, apiKeys: [{ apiKey: 3, minVersion: 0, maxVersion: 12 }], throttleTimeMs: 0 });
    expect([...plain]).toEqual([0, 0, 2, 0, 3, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0]);
    const tagged = encodeToBuffer(messages.ApiVersionsResponseSchema, 3, { apiKeys: [], finalizedFeaturesEpoch: 5n });
    // error 0, empty compact array (1), throttle 0, one tagged field: tag 1, 8 bytes, int64 5
    expect([...tagged]).toEqual([0, 0, 1, 0, 0, 0, 0, 1, 1, 8, 0, 0, 0, 0, 0, 0, 0, 5]);
    expect(decodeExactly(messages.ApiVersionsResponseSchema, 3, tagged)).toMatchObject({ finalizedFeaturesEpoch: 5n, zkMigrationReady: false });
  });

  it('skips unknown tags and refuses tags out of order', () => {
    const withUnknown = Buffer.from([0, 0, 1, 0, 0, 0, 0, 1, 9, 2, 0xaa, 0xbb]);
    expect(decodeExactly(messages.ApiVersionsResponseSchema, 3, withUnknown)).toMatchObject({ apiKeys: [], finalizedFeaturesEpoch: -1n });
    const outOfOrder = Buffer.from([0, 0, 1, 0, 0, 0, 0, 2, 9, 0, 3, 0]);
    expect(() => decodeExactly(messages.ApiVersionsResponseSchema, 3, outOfOrder)).toThrow(MalformedRequestError);
  });
});

describe('malformed bytes', () => {
  it('a truncated message, a lying array count, a null where none is allowed and trailing bytes are MalformedRequestError', () => {
    const good = encodeToBuffer(messages.MetadataRequestSchema, 4, { topics: [{ name: 'orders' }], allowAutoTopicCreation: true });
    for (let n = 0; n < good.length; n++) expect(() => decodeExactly(messages.MetadataRequestSchema, 4, good.subarray(0, n))).toThrow(MalformedRequestError);
    expect(() => decodeExactly(messages.MetadataRequestSchema, 4, Buffer.from([0x7f, 0xff, 0xff, 0xff, 1]))).toThrow(/elements/);
    expect(() => decodeExactly(messages.MetadataRequestSchema, 0, Buffer.from([0xff, 0xff, 0xff, 0xff]))).toThrow(/null/);
    expect(() => decodeExactly(messages.MetadataRequestSchema, 4, Buffer.concat([good, Buffer.from([0])]))).toThrow(/after the message/);
    expect(() => decodeMessage(messages.MetadataRequestSchema, 99, new ByteReader(good))).toThrow(MalformedRequestError);
  });
});
