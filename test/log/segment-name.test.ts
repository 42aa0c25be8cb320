// lib/log/segment-name.ts: object keys. Segment keys sort by base offset inside a partition folder
// that never prefixes another's; intake keys parse back to their time and id, and nothing else does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INTAKE_FOLDER,
  intakeFolder,
  intakeObjectKey,
  newSegmentId,
  parseIntakeObjectKey,
  partitionObjectPrefix,
  segmentObjectKey,
  topicObjectPrefix,
} from '../../lib/log/segment-name.js';

const t = { name: 'orders', id: 'ID' };

describe('segment names', () => {
  it('segment keys: <prefix>/<topic>-<id>/<partition>/<20-digit base>-<segment id><suffix>', () => {
    expect(segmentObjectKey('p', t, 3, 42, '7-abc', '.log')).toBe('p/orders-ID/3/00000000000000000042-7-abc.log');
    expect(segmentObjectKey('', t, 3, 42, 's', '.timeindex')).toBe('orders-ID/3/00000000000000000042-s.timeindex');
    expect(topicObjectPrefix('', t)).toBe('orders-ID/');
    expect(partitionObjectPrefix('p', t, 1)).toBe('p/orders-ID/1/');
    expect(partitionObjectPrefix('p', t, 10).startsWith(partitionObjectPrefix('p', t, 1))).toBe(false);
  });
  it('property: segment keys of one partition sort as their base offsets', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), fc.nat({ max: Number.MAX_SAFE_INTEGER }), (a, b) => {
        fc.pre(a !== b);
        const [ka, kb] = [segmentObjectKey('', t, 0, a, 'x', '.log'), segmentObjectKey('', t, 0, b, 'x', '.log')];
        expect(ka < kb).toBe(a < b);
      }),
    );
  });
  it('segment ids carry the epoch and are random', () => {
    expect(newSegmentId(5)).toMatch(/^5-[0-9a-f]{16}$/);
    expect(newSegmentId(5)).not.toBe(newSegmentId(5));
  });
  it('intake keys: hour folder from the time; parse back to time and id', () => {
    const ms = Date.UTC(2024, 0, 2, 13, 45);
    const key = intakeObjectKey('p', ms, '0123456789abcdef');
    expect(key).toBe(`p/${INTAKE_FOLDER}/2024-01-02T13/${ms}-0123456789abcdef.log`);
    expect(intakeFolder('')).toBe('_intake/');
    expect(parseIntakeObjectKey('p', key)).toEqual({ ms, id: '0123456789abcdef' });
    expect(intakeObjectKey('', ms)).toMatch(/^_intake\/2024-01-02T13\/\d+-[0-9a-f]{16}\.log$/);
  });
  it('property: parse(intakeObjectKey(ms, id)) round-trips', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }) /* four-digit years */, fc.stringMatching(/^[0-9a-f]{16}$/), (ms, id) => {
        expect(parseIntakeObjectKey('x', intakeObjectKey('x', ms, id))).toEqual({ ms, id });
      }),
    );
  });
  it('anything else is not an intake key: wrong prefix, wrong hour folder, bad id, segments', () => {
    const ms = Date.UTC(2024, 0, 2, 13);
    expect(parseIntakeObjectKey('q', intakeObjectKey('p', ms, '0123456789abcdef'))).toBeUndefined();
    expect(parseIntakeObjectKey('p', `p/_intake/2024-01-02T14/${ms}-0123456789abcdef.log`)).toBeUndefined();
    expect(parseIntakeObjectKey('p', `p/_intake/2024-01-02T13/${ms}-0123456789ABCDEF.log`)).toBeUndefined();
    expect(parseIntakeObjectKey('p', `p/_intake/2024-01-02T13/${ms}-0123456789abcdef.index`)).toBeUndefined();
    expect(parseIntakeObjectKey('p', segmentObjectKey('p', t, 0, 0, 'x', '.log'))).toBeUndefined();
  });
});
