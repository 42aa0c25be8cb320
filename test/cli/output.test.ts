// lib/cli/output.ts: aligned tables, the one-line error format, integer options.
import { describe, expect, it } from 'vitest';
import { SluiceClientError } from '../../lib/client/errors.js';
import { describeError, formatTable, parseInteger } from '../../lib/cli/output.js';

describe('cli output', () => {
  it('formatTable: columns padded to the widest cell, two spaces apart, no trailing padding, - for null', () => {
    expect(formatTable(['TOPIC', 'P', 'LAG'], [['orders', 0, 12], ['a', null, undefined]])).toBe(['TOPIC   P  LAG', 'orders  0  12', 'a       -  -'].join('\n'));
  });
  it('describeError: code and message for client errors, the message otherwise', () => {
    expect(describeError(new SluiceClientError('UNKNOWN_TOPIC_OR_PARTITION', "topic 'x' does not exist"))).toBe("error: UNKNOWN_TOPIC_OR_PARTITION: topic 'x' does not exist");
    expect(describeError(new Error('boom'))).toBe('error: boom');
    expect(describeError('text')).toBe('error: text');
  });
  it('parseInteger: safe integers at or above the minimum', () => {
    expect(parseInteger('--partitions', 1)('3')).toBe(3);
    expect(() => parseInteger('--partitions', 1)('0')).toThrow("--partitions must be an integer >= 1, got '0'");
    expect(() => parseInteger('--offset')('1.5')).toThrow(/integer/);
    expect(() => parseInteger('--offset')('abc')).toThrow(/integer/);
  });
});
