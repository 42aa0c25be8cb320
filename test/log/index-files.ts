// Reading `.index` and `.timeindex` objects whole, to check what a merge wrote (Kafka's layouts:
// lib/log/offset-index.ts, lib/log/time-index.ts). lib/ only looks entries up in them.
import { OFFSET_INDEX_ENTRY_SIZE, type OffsetIndexEntry } from '../../lib/log/offset-index.js';
import { TIME_INDEX_ENTRY_SIZE, type TimeIndexEntry } from '../../lib/log/time-index.js';

export function decodeOffsetIndex(baseOffset: number, buf: Buffer): OffsetIndexEntry[] {
  const entries: OffsetIndexEntry[] = [];
  for (let at = 0; at + OFFSET_INDEX_ENTRY_SIZE <= buf.length; at += OFFSET_INDEX_ENTRY_SIZE) {
    entries.push({ offset: baseOffset + buf.readInt32BE(at), position: buf.readInt32BE(at + 4) });
  }
  return entries;
}

export function decodeTimeIndex(baseOffset: number, buf: Buffer): TimeIndexEntry[] {
  const entries: TimeIndexEntry[] = [];
  for (let at = 0; at + TIME_INDEX_ENTRY_SIZE <= buf.length; at += TIME_INDEX_ENTRY_SIZE) {
    entries.push({ timestamp: Number(buf.readBigInt64BE(at)), offset: baseOffset + buf.readInt32BE(at + 8) });
  }
  return entries;
}
