// The IAM token end to end without a gateway: lib/client/iam-oauthbearer.ts signs, the test's STS
// emulator re-verifies the SigV4 signature, and IamOAuthBearerAuthenticator accepts exactly the
// tokens it should. Every refusal that a local check can make is made before STS is asked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { iamOAuthBearerProvider, iamTokenSigner } from '../../lib/client/iam-oauthbearer.js';
import { IamOAuthBearerAuthenticator } from '../../lib/kafka/auth/iam-authenticator.js';
import { checkIamToken, isAwsStsHost } from '../../lib/kafka/auth/iam-token.js';
import { parseOAuthBearerClientResponse } from '../../lib/kafka/auth/oauthbearer-client-response.js';
import { parsePrincipalAllowList, principalAllowed } from '../../lib/kafka/auth/principal-allow-list.js';
import { parseCallerIdentity } from '../../lib/kafka/auth/sts-caller-identity.js';
import { type EmulatedPrincipal, type StsEmulator, startStsEmulator } from './sasl-sts-emulator.js';

const WRITER: EmulatedPrincipal = {
  accessKeyId: 'ASIATESTWRITER000001',
  secretAccessKey: 'writer-secret-key-for-tests-only-0000000',
  sessionToken: 'writer-session-token+/=',
  arn: 'arn:aws:sts::111122223333:assumed-role/Writer/app-1',
  userId: 'AROATESTWRITER:app-1',
};
const OUTSIDER: EmulatedPrincipal = {
  accessKeyId: 'AKIATESTOUTSIDER0001',
  secretAccessKey: 'outsider-secret-key-for-tests-only-00000',
  arn: 'arn:aws:iam::444455556666:user/outsider',
  userId: 'AIDATESTOUTSIDER',
};
const GATEWAY = 'kafka.sluice.test';

let sts: StsEmulator;
beforeAll(async () => {
  sts = await startStsEmulator([WRITER, OUTSIDER]);
});
afterAll(() => sts.close());
beforeEach(() => {
  sts.requests.length = 0;
});

function signer(principal: EmulatedPrincipal, extra: { gatewayId?: string; tokenLifetimeSeconds?: number; expiration?: Date } = {}) {
  return iamTokenSigner({
    gatewayId: extra.gatewayId ?? GATEWAY,
    region: 'eu-west-1',
    stsEndpoint: sts.endpoint,
    tokenLifetimeSeconds: extra.tokenLifetimeSeconds,
    credentials: { accessKeyId: principal.accessKeyId, secretAccessKey: principal.secretAccessKey, sessionToken: principal.sessionToken, expiration: extra.expiration },
  });
}

function authenticator(options: { allowedPrincipals?: string[]; gatewayId?: string; now?: () => number } = {}) {
  return new IamOAuthBearerAuthenticator({ gatewayId: options.gatewayId ?? GATEWAY, stsEndpoint: sts.endpoint, ...options });
}

const initialResponse = (token: string) => Buffer.from(`n,,\u0001auth=Bearer ${token}\u0001\u0001`);
const urlOf = (token: string) => new URL(Buffer.from(token, 'base64url').toString('utf8'));
const tokenOf = (url: URL | string) => Buffer.from(String(url)).toString('base64url');

describe('the IAM token provider', () => {
  it('gives kafkajs an OAUTHBEARER sasl option whose token is a presigned GetCallerIdentity URL bound to the gateway', async () => {
    const sasl = iamOAuthBearerProvider({
      gatewayId: 'Kafka.Sluice.Test',
      region: 'eu-west-1',
      credentials: { accessKeyId: OUTSIDER.accessKeyId, secretAccessKey: OUTSIDER.secretAccessKey },
    });
    expect(sasl.mechanism).toBe('oauthbearer');
    const { value } = await sasl.oauthBearerProvider();
    const url = urlOf(value);
    expect(url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-sluice-gateway-id');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIATESTOUTSIDER0001\/\d{8}\/eu-west-1\/sts\/aws4_request$/);
    expect(value).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('never makes a token that outlives the credentials signing it', async () => {
    const now = new Date();
    const token = await signer(WRITER, { expiration: new Date(now.getTime() + 120_500) })(now);
    expect(urlOf(token.value).searchParams.get('X-Amz-Expires')).toBe('120');
    await expect(signer(WRITER, { expiration: new Date(now.getTime() - 1) })(now)).rejects.toThrow(/credentials have expired/);
  });

  it('refuses a configuration without gateway id or region', () => {
    expect(() => iamTokenSigner({ gatewayId: ' ', region: 'eu-west-1' })).toThrow(/gatewayId/);
    expect(() => iamTokenSigner({ gatewayId: GATEWAY, region: 'eu-west-1', tokenLifetimeSeconds: 0 })).toThrow(/tokenLifetimeSeconds/);
  });
});

describe('IamOAuthBearerAuthenticator', () => {
  it('authenticates the signer as the ARN STS names, for as long as the token lives', async () => {
    const token = await signer(WRITER)();
    const session = await authenticator().authenticate(initialResponse(token.value));
    expect(session.principal).toBe(WRITER.arn);
    expect(session.identity).toEqual({ arn: WRITER.arn, account: '111122223333', userId: WRITER.userId });
    expect(session.expiresAt).toBe(token.expiresAt);
    // The gateway sent its own id, in the header the client signed.
    expect(sts.requests).toHaveLength(1);
    expect(sts.requests[0].headers['x-sluice-gateway-id']).toBe(GATEWAY);
  });

  it('refuses a token made for another gateway: STS finds the signature does not match', async () => {
    const token = await signer(WRITER, { gatewayId: 'other-gateway.example.com' })();
    await expect(authenticator().authenticate(initialResponse(token.value))).rejects.toThrow(/STS refused the IAM token \(HTTP 403, SignatureDoesNotMatch/);
  });

  it('refuses a tampered token', async () => {
    const url = urlOf((await signer(WRITER)()).value);
    const signature = url.searchParams.get('X-Amz-Signature')!;
    url.searchParams.set('X-Amz-Signature', (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1));
    await expect(authenticator().authenticate(initialResponse(tokenOf(url)))).rejects.toThrow(/SignatureDoesNotMatch/);
    // A longer lifetime than signed: the signature covers X-Amz-Expires.
    const longer = urlOf((await signer(WRITER, { tokenLifetimeSeconds: 60 })()).value);
    longer.searchParams.set('X-Amz-Expires', '900');
    await expect(authenticator().authenticate(initialResponse(tokenOf(longer)))).rejects.toThrow(/SignatureDoesNotMatch/);
  });

  it('refuses an expired token without asking STS', async () => {
    const token = await signer(WRITER, { tokenLifetimeSeconds: 60 })(new Date(Date.now() - 61_000));
    await expect(authenticator().authenticate(initialResponse(token.value))).rejects.toThrow(/the token has expired/);
    const later = await signer(WRITER)();
    await expect(authenticator({ now: () => later.expiresAt }).authenticate(initialResponse(later.value))).rejects.toThrow(/expired/);
    expect(sts.requests).toHaveLength(0);
  });

  it('refuses a token whose lifetime exceeds the maximum, or that is dated in the future', async () => {
    const long = await signer(WRITER, { tokenLifetimeSeconds: 3600 })();
    await expect(authenticator().authenticate(initialResponse(long.value))).rejects.toThrow(/X-Amz-Expires exceeds 900 seconds/);
    const future = await signer(WRITER)(new Date(Date.now() + 10 * 60_000));
    await expect(authenticator().authenticate(initialResponse(future.value))).rejects.toThrow(/dated in the future/);
    expect(sts.requests).toHaveLength(0);
  });

  it('refuses any action but GetCallerIdentity, and extra parameters, without asking STS', async () => {
    const credentials = { accessKeyId: WRITER.accessKeyId, secretAccessKey: WRITER.secretAccessKey, sessionToken: WRITER.sessionToken };
    const sigv4 = new SignatureV4({ service: 'sts', region: 'eu-west-1', credentials, sha256: Sha256 });
    const host = new URL(sts.endpoint).host;
    const presign = async (query: Record<string, string>) => {
      const p = await sigv4.presign({ method: 'GET', protocol: 'http:', hostname: '127.0.0.1', path: '/', query, headers: { host, 'x-sluice-gateway-id': GATEWAY } }, { expiresIn: 60 });
      return tokenOf(`${sts.endpoint}/?${new URLSearchParams(p.query as Record<string, string>)}`);
    };
    const assume = await presign({ Action: 'AssumeRole', Version: '2011-06-15', RoleArn: 'arn:aws:iam::111122223333:role/Admin', RoleSessionName: 'x' });
    await expect(authenticator().authenticate(initialResponse(assume))).rejects.toThrow(/unexpected query parameter 'RoleArn'/);
    const action = await presign({ Action: 'GetSessionToken', Version: '2011-06-15' });
    await expect(authenticator().authenticate(initialResponse(action))).rejects.toThrow(/the action must be GetCallerIdentity/);
    const twice = urlOf(await presign({ Action: 'GetCallerIdentity', Version: '2011-06-15' }));
    twice.searchParams.append('action', 'AssumeRole');
    await expect(authenticator().authenticate(initialResponse(tokenOf(twice)))).rejects.toThrow(/unexpected query parameter 'action'/);
    // Signed without the gateway id header: replayable against any service that checks nothing.
    const unbound = await sigv4.presign({ method: 'GET', protocol: 'http:', hostname: '127.0.0.1', path: '/', query: { Action: 'GetCallerIdentity', Version: '2011-06-15' }, headers: { host } }, { expiresIn: 60 });
    const unboundToken = tokenOf(`${sts.endpoint}/?${new URLSearchParams(unbound.query as Record<string, string>)}`);
    await expect(authenticator().authenticate(initialResponse(unboundToken))).rejects.toThrow(/signed headers must be host and x-sluice-gateway-id/);
    expect(sts.requests).toHaveLength(0);
  });

  it('never sends a token to a host that is not the trusted STS endpoint (no SSRF)', async () => {
    const hits: string[] = [];
    const decoy: Server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:iam::111122223333:root</Arn><UserId>x</UserId><Account>111122223333</Account></GetCallerIdentityResult></GetCallerIdentityResponse>');
    });
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
    try {
      const decoyEndpoint = `http://127.0.0.1:${(decoy.address() as AddressInfo).port}`;
      const signed = urlOf((await signer(WRITER)()).value);
      for (const target of [decoyEndpoint, 'http://169.254.169.254', 'http://localhost:' + new URL(sts.endpoint).port, 'https://' + new URL(sts.endpoint).host]) {
        const moved = new URL(`${target}/?${signed.searchParams}`);
        await expect(authenticator().authenticate(initialResponse(tokenOf(moved)))).rejects.toThrow(/is not an STS endpoint this gateway trusts|must use http/);
      }
      for (const odd of [`${sts.endpoint}/other?${signed.searchParams}`, `http://user:pw@${new URL(sts.endpoint).host}/?${signed.searchParams}`]) {
        await expect(authenticator().authenticate(initialResponse(tokenOf(odd)))).rejects.toThrow(/path must be|user information/);
      }
      expect(hits).toEqual([]);
      expect(sts.requests).toHaveLength(0);
    } finally {
      await new Promise<void>((resolve) => decoy.close(() => resolve()));
    }
  });

  it('admits only allow-listed principals: by account, by role (any session), by exact ARN', async () => {
    const writerToken = async () => initialResponse((await signer(WRITER)()).value);
    const outsiderToken = async () => initialResponse((await signer(OUTSIDER)()).value);
    const byAccount = authenticator({ allowedPrincipals: ['111122223333'] });
    expect((await byAccount.authenticate(await writerToken())).principal).toBe(WRITER.arn);
    await expect(byAccount.authenticate(await outsiderToken())).rejects.toThrow(/principal arn:aws:iam::444455556666:user\/outsider is not allowed/);
    const byRole = authenticator({ allowedPrincipals: ['arn:aws:iam::111122223333:role/apps/Writer'] });
    expect((await byRole.authenticate(await writerToken())).principal).toBe(WRITER.arn);
    await expect(byRole.authenticate(await outsiderToken())).rejects.toThrow(/not allowed/);
    const byUser = authenticator({ allowedPrincipals: [OUTSIDER.arn] });
    expect((await byUser.authenticate(await outsiderToken())).principal).toBe(OUTSIDER.arn);
    await expect(byUser.authenticate(await writerToken())).rejects.toThrow(/not allowed/);
    expect(() => authenticator({ allowedPrincipals: ['Writer'] })).toThrow(/neither a 12-digit account id nor an IAM or STS ARN/);
  });

  it('verifies at most maxConcurrentVerifications tokens with STS at once, refusing the others at once', async () => {
    const bounded = new IamOAuthBearerAuthenticator({ gatewayId: GATEWAY, stsEndpoint: sts.endpoint, maxConcurrentVerifications: 1 });
    sts.delayMs = 200;
    try {
      const [first, second] = await Promise.allSettled([
        bounded.authenticate(initialResponse((await signer(WRITER)()).value)),
        bounded.authenticate(initialResponse((await signer(WRITER)()).value)),
      ]);
      expect(first).toMatchObject({ status: 'fulfilled', value: { principal: WRITER.arn } });
      expect(second).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/1 authentications are being verified with STS already/) } });
      expect(sts.requests).toHaveLength(1);
      // The slot is free again once STS has answered.
      expect((await bounded.authenticate(initialResponse((await signer(WRITER)()).value))).principal).toBe(WRITER.arn);
    } finally {
      sts.delayMs = 0;
    }
  });

  it('refuses an authorization id other than the token\'s principal', async () => {
    const token = (await signer(WRITER)()).value;
    const asAdmin = Buffer.from(`n,a=arn:aws:iam::111122223333:user/admin,\u0001auth=Bearer ${token}\u0001\u0001`);
    await expect(authenticator().authenticate(asAdmin)).rejects.toThrow(/authorization id differs/);
    const asSelf = Buffer.from(`n,a=${WRITER.arn},\u0001auth=Bearer ${token}\u0001\u0001`);
    expect((await authenticator().authenticate(asSelf)).principal).toBe(WRITER.arn);
  });
});

describe('the parts of the check', () => {
  it('parses RFC 7628 client responses and refuses malformed ones', () => {
    expect(parseOAuthBearerClientResponse(Buffer.from('n,,\u0001auth=Bearer abc-_.~+/=\u0001\u0001'))).toEqual({ authorizationId: undefined, token: 'abc-_.~+/=', extensions: {} });
    expect(parseOAuthBearerClientResponse(Buffer.from('n,a=x=2Cy,\u0001auth=Bearer t\u0001traceId=42\u0001\u0001'))).toEqual({
      authorizationId: 'x,y',
      token: 't',
      extensions: { traceId: '42' },
    });
    for (const bad of ['', 'n,,\u0001\u0001', 'y,,\u0001auth=Bearer t\u0001\u0001', 'n,,\u0001auth=Bearer t\u0001', 'n,,\u0001auth=Basic t\u0001\u0001', 'n,,\u0001auth=Bearer t\u0001auth=Bearer u\u0001\u0001', 'n,,\u0001auth=Bearer t u\u0001\u0001', 'p=tls-unique,,\u0001auth=Bearer t\u0001\u0001']) {
      expect(() => parseOAuthBearerClientResponse(Buffer.from(bad)), JSON.stringify(bad)).toThrow(/invalid OAUTHBEARER client response/);
    }
  });

  it('trusts regional STS hosts of AWS only', () => {
    for (const host of ['sts.us-east-1.amazonaws.com', 'sts.eu-west-1.amazonaws.com', 'sts-fips.us-gov-west-1.amazonaws.com', 'sts.cn-north-1.amazonaws.com.cn']) expect(isAwsStsHost(host), host).toBe(true);
    for (const host of ['sts.amazonaws.com', 'sts.us-east-1.amazonaws.com.evil.com', 'evil.com', 'sts.us-east-1.amazonaws.com:8443', 'sts.cn-north-1.amazonaws.com', 'sts.eu-west-1.amazonaws.com.cn', 'iam.amazonaws.com', '169.254.169.254']) {
      expect(isAwsStsHost(host), host).toBe(false);
    }
  });

  it('refuses a token signed for one region but addressed to another region\'s STS', async () => {
    const sasl = iamTokenSigner({ gatewayId: GATEWAY, region: 'eu-west-1', credentials: { accessKeyId: OUTSIDER.accessKeyId, secretAccessKey: OUTSIDER.secretAccessKey } });
    const url = urlOf((await sasl()).value);
    const policy = { stsHostAllowed: isAwsStsHost, protocol: 'https:' as const, maxLifetimeSeconds: 900, clockSkewMs: 300_000 };
    expect(checkIamToken(tokenOf(url), policy, Date.now()).url).toMatch(/^https:\/\/sts\.eu-west-1\.amazonaws\.com\/\?Action=GetCallerIdentity&/);
    url.host = 'sts.us-east-1.amazonaws.com';
    expect(() => checkIamToken(tokenOf(url), policy, Date.now())).toThrow(/signed for region eu-west-1 but sent to sts.us-east-1.amazonaws.com/);
    expect(() => checkIamToken('not base64!', policy, Date.now())).toThrow(/not base64url/);
  });

  it('reads the caller from STS XML and refuses anything else', () => {
    const ok = `<?xml version="1.0"?>\n<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:iam::111122223333:user/a&amp;b</Arn><UserId>AIDA1</UserId><Account>111122223333</Account></GetCallerIdentityResult></GetCallerIdentityResponse>`;
    expect(parseCallerIdentity(ok)).toEqual({ arn: 'arn:aws:iam::111122223333:user/a&b', userId: 'AIDA1', account: '111122223333' });
    expect(() => parseCallerIdentity(ok.replace('<Account>111122223333', '<Account>999999999999'))).toThrow(/outside the caller's account/);
    expect(() => parseCallerIdentity(ok.replace('</Arn>', '</Arn><Arn>arn:aws:iam::111122223333:root</Arn>'))).toThrow(/malformed caller identity/);
    expect(() => parseCallerIdentity('<ErrorResponse/>')).toThrow(/without a GetCallerIdentityResult/);
  });

  it('matches allow-list entries exactly, not by prefix', () => {
    const list = parsePrincipalAllowList(['arn:aws:iam::111122223333:role/Writer', 'arn:aws:iam::111122223333:user/bob']);
    const id = (arn: string) => ({ arn, account: arn.split(':')[4], userId: 'x' });
    expect(principalAllowed(id('arn:aws:sts::111122223333:assumed-role/Writer/s'), list)).toBe(true);
    expect(principalAllowed(id('arn:aws:sts::111122223333:assumed-role/WriterAdmin/s'), list)).toBe(false);
    expect(principalAllowed(id('arn:aws:iam::111122223333:user/bobby'), list)).toBe(false);
    expect(principalAllowed(id('arn:aws:sts::999999999999:assumed-role/Writer/s'), list)).toBe(false);
    expect(principalAllowed(id('arn:aws:iam::111122223333:user/anyone'), [])).toBe(true);
  });
});
