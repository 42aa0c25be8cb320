// lib/groups/group-keys.ts: a group's META and OFFSET items share the group's partition key.
import { describe, expect, it } from 'vitest';
import { OFFSET_PREFIX, groupMetaKey, offsetKey } from '../../lib/groups/group-keys.js';

describe('group keys', () => {
  it('META and OFFSET#<topic>#<partition> under GROUP#<group>', () => {
    expect(groupMetaKey('g')).toEqual({ pk: 'GROUP#g', sk: 'META' });
    expect(offsetKey('g', 'orders', 3)).toEqual({ pk: 'GROUP#g', sk: 'OFFSET#orders#3' });
    expect(offsetKey('g', 'orders', 3).sk.startsWith(OFFSET_PREFIX)).toBe(true);
    // A topic's prefix does not match another topic that extends its name
    expect(offsetKey('g', 'orders2', 0).sk.startsWith(`${OFFSET_PREFIX}orders#`)).toBe(false);
  });
});
