// The shape of Kafka's message definitions (apache/kafka clients/src/main/resources/common/message/*.json)
// as data: scripts/generate-kafka-protocol.ts turns each JSON file into one MessageSchema in
// messages.ts, and codec.ts reads and writes any message by walking its schema.

/** Inclusive range of versions; `N+` in the JSON is [N, MAX_VERSION], `none` is absent (null). */
export type VersionRange = readonly [min: number, max: number];

/** The open end of a `N+` range. */
export const MAX_VERSION = 0x7fff;

export type PrimitiveType =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'bytes'
  | 'records'
  | 'uuid';

export type FieldType =
  | { readonly kind: 'primitive'; readonly type: PrimitiveType }
  | { readonly kind: 'array'; readonly items: FieldType }
  | { readonly kind: 'struct'; readonly struct: StructSchema };

export interface StructSchema {
  /** The struct's name in the JSON (`TopicProduceData`), or the message's name at the top. */
  readonly name: string;
  readonly fields: readonly FieldSchema[];
}

export interface FieldSchema {
  /** The JSON name with its first letter lowercased: `TopicData` → `topicData`. */
  readonly name: string;
  readonly type: FieldType;
  readonly versions: VersionRange;
  readonly nullableVersions?: VersionRange;
  /** Versions in which the field travels in the tagged-fields section, under `tag`. */
  readonly taggedVersions?: VersionRange;
  readonly tag?: number;
  /** The JSON's `default`, as written there (`"-1"`, `"null"`, `"true"`, `"0x7fffffff"`). */
  readonly default?: string;
  /**
   * Field-level override of the message's flexible versions (RequestHeader's ClientId is
   * `none`: always an old-style string, so any broker can read the header).
   */
  readonly flexibleVersions?: VersionRange | null;
}

export interface MessageSchema extends StructSchema {
  readonly apiKey?: number;
  readonly type: 'request' | 'response' | 'header';
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange | null;
}

export function inRange(range: VersionRange | null | undefined, version: number): boolean {
  return range != null && version >= range[0] && version <= range[1];
}
