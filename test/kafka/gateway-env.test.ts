// The container's environment (lib/kafka/gateway-env.ts): defaults, and the TLS pair — both or
// neither, PEM, a key that belongs to the certificate — refused with a message naming the variable
// and never quoting the key.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gatewayEnvironment } from '../../lib/kafka/gateway-env.js';

const CERT = readFileSync(new URL('../fixtures/tls/localhost.crt', import.meta.url), 'utf8');
const KEY = readFileSync(new URL('../fixtures/tls/localhost.key', import.meta.url), 'utf8');
const BASE = { KAFKA_ADVERTISED_HOST: 'kafka.internal.example' };

describe('gatewayEnvironment', () => {
  it('has the documented defaults, plain TCP without KAFKA_TLS_*', () => {
    expect(gatewayEnvironment(BASE)).toEqual({
      host: '0.0.0.0',
      port: 9092,
      advertisedHost: 'kafka.internal.example',
      advertisedPort: undefined,
      authentication: 'iam',
      gatewayId: 'kafka.internal.example',
      allowedPrincipals: [],
      stsEndpoint: undefined,
      lingerMs: undefined,
      connectionsMaxIdleMs: undefined,
      socketRequestMaxBytes: undefined,
      shutdownGraceMs: 20_000,
      tls: undefined,
    });
    expect(gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: '', KAFKA_TLS_KEY: ' ' }).tls).toBeUndefined();
    expect(() => gatewayEnvironment({})).toThrow(/KAFKA_ADVERTISED_HOST is required/);
  });

  it('reads the certificate and key (PEM contents), also pasted as one line with \\n escapes', () => {
    expect(gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: CERT, KAFKA_TLS_KEY: KEY }).tls).toEqual({ cert: CERT.trim(), key: KEY.trim() });
    const oneLine = (pem: string) => pem.trim().replace(/\n/g, '\\n');
    expect(oneLine(CERT)).not.toContain('\n');
    expect(gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: oneLine(CERT), KAFKA_TLS_KEY: oneLine(KEY) }).tls).toEqual({ cert: CERT.trim(), key: KEY.trim() });
  });

  it('reads the TLS handshake timeout, only beside the pair', () => {
    expect(gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: CERT, KAFKA_TLS_KEY: KEY, SLUICE_KAFKA_TLS_HANDSHAKE_TIMEOUT_MS: '2500' }).tls).toEqual({
      cert: CERT.trim(),
      key: KEY.trim(),
      handshakeTimeoutMs: 2500,
    });
    expect(() => gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: CERT, KAFKA_TLS_KEY: KEY, SLUICE_KAFKA_TLS_HANDSHAKE_TIMEOUT_MS: '0' })).toThrow(/SLUICE_KAFKA_TLS_HANDSHAKE_TIMEOUT_MS must be an integer 100-600000/);
    expect(() => gatewayEnvironment({ ...BASE, SLUICE_KAFKA_TLS_HANDSHAKE_TIMEOUT_MS: '2500' })).toThrow(/needs KAFKA_TLS_CERT and KAFKA_TLS_KEY/);
  });

  it('refuses one of the pair without the other', () => {
    expect(() => gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: CERT })).toThrow(
      'KAFKA_TLS_CERT is set but KAFKA_TLS_KEY is not: the gateway terminates TLS with both (PEM contents) or serves plain TCP with neither',
    );
    expect(() => gatewayEnvironment({ ...BASE, KAFKA_TLS_KEY: KEY })).toThrow(/^KAFKA_TLS_KEY is set but KAFKA_TLS_CERT is not/);
  });

  it('refuses values that are not PEM, or do not parse, without quoting the key', () => {
    const secret = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kafka-tls';
    expect(() => gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: secret, KAFKA_TLS_KEY: KEY })).toThrow(/^KAFKA_TLS_CERT is not a PEM certificate/);
    expect(() => gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: CERT, KAFKA_TLS_KEY: 'hunter2' })).toThrow(/^KAFKA_TLS_KEY is not a PEM private key/);
    // The pair swapped: each is PEM, of the wrong kind.
    expect(() => gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: KEY, KAFKA_TLS_KEY: CERT })).toThrow(/^KAFKA_TLS_CERT is not a PEM certificate/);
    const garbled = CERT.replace(/^(MII.{10})/m, '$1!!!');
    expect(() => gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: garbled, KAFKA_TLS_KEY: KEY })).toThrow(/^KAFKA_TLS_CERT does not hold a readable certificate/);
    const keyBody = KEY.split('\n')[1]!;
    const brokenKey = KEY.replace(keyBody, keyBody.slice(0, 20));
    let message = '';
    try {
      gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: CERT, KAFKA_TLS_KEY: brokenKey });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^KAFKA_TLS_KEY does not hold a readable private key/);
    expect(message).not.toContain(keyBody.slice(0, 20));
  });

  it('refuses a key that is not the certificate\'s', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => gatewayEnvironment({ ...BASE, KAFKA_TLS_CERT: CERT, KAFKA_TLS_KEY: other })).toThrow(
      'KAFKA_TLS_KEY is not the private key of the certificate in KAFKA_TLS_CERT (CN=localhost)',
    );
  });
});
