// lib/client/message.ts: user messages (kafkajs shapes) to the wire, base64 only when some bytes
// are not text; size estimates; the bytes a key hashes over.
import { describe, expect, it } from 'vitest';
import { chooseEncoding, headerList, keyBytes, messageSize, toWire } from '../../lib/client/message.js';

describe('messages', () => {
  it('headerList: object form (arrays repeat a key) or list form kept in order', () => {
    expect(headerList(undefined)).toEqual([]);
    expect(headerList({ a: 'x', b: ['y', 'z'], c: null })).toEqual([{ key: 'a', value: 'x' }, { key: 'b', value: 'y' }, { key: 'b', value: 'z' }, { key: 'c', value: null }]);
    const list = [{ key: 'k', value: 'v' }, { key: 'k', value: 'w' }];
    expect(headerList(list)).toEqual(list);
  });
  it('chooseEncoding: utf8 unless some Buffer is not valid UTF-8 (key, value or header)', () => {
    expect(chooseEncoding([{ key: 'k', value: Buffer.from('héllo') }])).toBe('utf8');
    expect(chooseEncoding([{ value: Buffer.from([0xff]) }])).toBe('base64');
    expect(chooseEncoding([{ value: 'a' }, { key: Buffer.from([0xc3]), value: null }])).toBe('base64');
    expect(chooseEncoding([{ value: 'a', headers: { h: Buffer.from([0x80]) } }])).toBe('base64');
  });
  it('toWire: strings or base64; absent key and headers omitted; numeric-string timestamps become numbers', () => {
    expect(toWire({ value: 'v' }, undefined, 'utf8')).toEqual({ value: 'v' });
    expect(toWire({ key: 'k', value: null, headers: { h: 'x' }, timestamp: '1700000000000' }, 3, 'utf8')).toEqual({
      key: 'k',
      value: null,
      headers: [{ key: 'h', value: 'x' }],
      partition: 3,
      timestamp: 1_700_000_000_000,
    });
    expect(toWire({ key: Buffer.from([0xff]), value: 'a' }, undefined, 'base64')).toEqual({ key: '/w==', value: Buffer.from('a').toString('base64') });
  });
  it('messageSize counts key, value and headers in bytes; keyBytes is the UTF-8 of a string key', () => {
    const base = messageSize({ value: null });
    expect(messageSize({ key: 'é', value: 'abc' })).toBe(base + 2 + 3);
    expect(messageSize({ value: null, headers: { hh: 'xyz' } })).toBe(base + 2 + 3 + 2);
    expect(keyBytes('é')).toEqual(Buffer.from([0xc3, 0xa9]));
    expect(keyBytes(null)).toBeNull();
    expect(keyBytes(undefined)).toBeNull();
    const b = Buffer.from([1]);
    expect(keyBytes(b)).toBe(b);
  });
});
