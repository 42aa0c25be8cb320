// Failed TLS handshakes are logged at most `perInterval` an interval, and the interval's end
// reports how many were left out (lib/kafka/handshake-failure-log.ts); the gateway ends an
// interval each time it publishes its metrics.
import { describe, expect, it } from 'vitest';
import { HandshakeFailureLog } from '../../lib/kafka/handshake-failure-log.js';

describe('HandshakeFailureLog', () => {
  it('logs the first failures of an interval with their fields, then counts the rest in one line at its end', () => {
    const lines: [string, Record<string, unknown>][] = [];
    const log = new HandshakeFailureLog((message, fields) => lines.push([message, fields]), 3);
    for (let i = 0; i < 8; i++) log.failed({ peer: `10.0.0.${i}:9999` });
    expect(lines).toEqual([0, 1, 2].map((i) => ['kafka TLS handshake failed', { peer: `10.0.0.${i}:9999` }]));
    log.endInterval();
    expect(lines.at(-1)).toEqual(['kafka TLS handshake failures not logged', { count: 5, logged: 3 }]);
    // A new interval logs again from its first failure; a quiet one ends without a line.
    log.failed({ peer: '10.0.0.9:9999' });
    expect(lines.at(-1)).toEqual(['kafka TLS handshake failed', { peer: '10.0.0.9:9999' }]);
    const before = lines.length;
    log.endInterval();
    log.endInterval();
    expect(lines.length).toBe(before);
  });
});
