import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { murmur2, toPositive } from '../../lib/partitioners/index.js';

const require = createRequire(import.meta.url);
const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2.js') as (key: Buffer) => number;

interface VectorFile {
  generator: string;
  vectors: [string, number][];
}
const javaVectors = JSON.parse(
  readFileSync(new URL('./fixtures/murmur2-vectors.json', import.meta.url), 'utf8'),
) as VectorFile;

describe('murmur2', () => {
  // Apache Kafka's UtilsTest.testMurmur2 vectors, asserted by Kafka's own test suite against Utils.murmur2.
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ])('hashes %j as Kafka UtilsTest pins it', (key, expected) => {
    expect(murmur2(Buffer.from(key))).toBe(expected);
  });

  it('hashes the byte key {12,42,56,24,109,111} as the Java client does', () => {
    expect(murmur2(Buffer.from([12, 42, 56, 24, 109, 111]))).toBe(274204207);
  });

  // kafkajs's defaultJava/murmur2.spec.js values, generated there with a Java program calling Kafka's
  // Utils.murmur2. (Its older default/murmur2.spec.js pins the legacy, not Java-compatible, hash.)
  it.each([
    ['0', 971027396],
    ['1', -1993445489],
    ['128', -326012175],
    ['2187', -1508407203],
    ['16384', -325739742],
    ['78125', -1654490814],
    ['279936', 1462227128],
    ['823543', -2014198330],
    ['2097152', 607668903],
    ['4782969', -1182699775],
    ['10000000', -1830336757],
    ['19487171', -1603849305],
    ['35831808', -857013643],
    ['62748517', -1167431028],
    ['105413504', -381294639],
    ['170859375', -1658323481],
    ['100:48069', 1009543857],
  ])('hashes %j as the kafkajs Java-generated vectors pin it', (key, expected) => {
    expect(murmur2(Buffer.from(key))).toBe(expected);
  });

  it(`agrees with the JVM on ${javaVectors.vectors.length} generated keys (every tail length, unicode, empty)`, () => {
    expect(javaVectors.vectors.length).toBeGreaterThan(600);
    for (const [hex, expected] of javaVectors.vectors) {
      expect(murmur2(Buffer.from(hex, 'hex')), hex).toBe(expected);
    }
  });

  it('agrees with kafkajs (its Java-compatible DefaultPartitioner hash) on 10,000 random keys', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const key = Buffer.from(bytes);
        expect(murmur2(key)).toBe(kafkajsMurmur2(key));
      }),
      { numRuns: 10_000, seed: 42 },
    );
  });

  it('returns a signed int32, and toPositive clears only the sign bit', () => {
    const hash = murmur2(Buffer.from('foobar'));
    expect(hash).toBe(hash | 0);
    expect(toPositive(hash)).toBe(1357151166);
    expect(toPositive(-2147483648)).toBe(0);
    expect(toPositive(123)).toBe(123);
  });
});
