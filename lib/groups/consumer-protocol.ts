// Kafka's ConsumerProtocol bytes: the subscription a consumer sends in JoinGroup's protocol
// metadata and the assignment its leader sends in SyncGroup (protocol type `consumer`).
//
//   Subscription: version int16, topics [string], userData bytes, (v1+) ownedPartitions, ...
//   Assignment:   version int16, [topic string, partitions [int32]], userData bytes
//
// Every version starts with the fields above, so the coordinator reads topics and partitions of
// any version (to describe a Kafka group like a Sluice-native one and to compute lag), and writes
// version 0 for Sluice-native members in DescribeGroups. The coordinator never needs the bytes to
// be decodable: a group of another protocol type keeps them opaque.
import type { MemberAssignment } from './assignors/types.js';

/** Kafka's protocol type of consumer groups. */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

class Reader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}
  private need(n: number): void {
    if (this.offset + n > this.buf.length) throw new RangeError('truncated');
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  string(): string {
    const length = this.int16();
    if (length < 0) throw new RangeError('null string');
    this.need(length);
    const v = this.buf.toString('utf8', this.offset, this.offset + length);
    this.offset += length;
    return v;
  }
  array<T>(item: () => T): T[] {
    const length = this.int32();
    if (length < 0) return [];
    // Each element takes at least 2 bytes: a count beyond what is left is corrupt, not an allocation.
    if (length > this.buf.length - this.offset) throw new RangeError('array longer than its bytes');
    return Array.from({ length }, item);
  }
}

/** The topics of a consumer's subscription, or undefined when the bytes are no ConsumerProtocol subscription. */
export function decodeSubscriptionTopics(bytes: Buffer): string[] | undefined {
  try {
    const r = new Reader(bytes);
    if (r.int16() < 0) return undefined;
    return [...new Set(r.array(() => r.string()))].sort();
  } catch {
    return undefined;
  }
}

/** The partitions of a consumer's assignment, or undefined when the bytes are no ConsumerProtocol assignment. */
export function decodeAssignment(bytes: Buffer): MemberAssignment | undefined {
  if (bytes.length === 0) return {};
  try {
    const r = new Reader(bytes);
    if (r.int16() < 0) return undefined;
    const out: MemberAssignment = {};
    for (const { topic, partitions } of r.array(() => ({ topic: r.string(), partitions: r.array(() => r.int32()) }))) {
      if (partitions.some((p) => p < 0)) return undefined;
      out[topic] = [...new Set([...(out[topic] ?? []), ...partitions])].sort((a, b) => a - b);
      if (out[topic].length === 0) delete out[topic];
    }
    return out;
  } catch {
    return undefined;
  }
}

function encodeString(s: string): Buffer {
  const bytes = Buffer.from(s, 'utf8');
  const length = Buffer.alloc(2);
  length.writeInt16BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

const int16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
};
const int32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const NULL_BYTES = int32(-1);

/** Subscription v0 with null user data. */
export function encodeSubscription(topics: readonly string[]): Buffer {
  return Buffer.concat([int16(0), int32(topics.length), ...topics.map(encodeString), NULL_BYTES]);
}

/** Assignment v0 (topics sorted) with null user data. */
export function encodeAssignment(assignment: MemberAssignment): Buffer {
  const topics = Object.keys(assignment).sort();
  return Buffer.concat([
    int16(0),
    int32(topics.length),
    ...topics.flatMap((t) => [encodeString(t), int32(assignment[t].length), ...assignment[t].map(int32)]),
    NULL_BYTES,
  ]);
}
