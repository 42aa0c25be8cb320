// The IAM token of SASL/OAUTHBEARER: base64url of an STS GetCallerIdentity request presigned with
// SigV4 (lib/client/iam-oauthbearer.ts makes them; the layout is in its header). Everything here
// is checked BEFORE the gateway sends anything anywhere, so a token can only ever make the gateway
// ask an STS endpoint "who signed this?":
//   - the URL is https (http only for a configured test endpoint), has no user info and no
//     fragment, its path is /, and its host (and port) is an STS endpoint the gateway trusts: a
//     regional endpoint of AWS, or the one configured (no SSRF);
//   - the query holds exactly Action=GetCallerIdentity, Version=2011-06-15 and the SigV4 presign
//     parameters, each once (no other action can ride along);
//   - it is signed with AWS4-HMAC-SHA256 for service `sts`, with the headers `host` and
//     `x-sluice-gateway-id` and no others (the gateway id binds it to this gateway);
//   - it is not expired, not dated in the future beyond the clock skew, and lives no longer than
//     the gateway's maximum token lifetime.
// The signature itself is STS's to check.
import { SaslAuthenticationError } from './sasl-authentication-error.js';

/** The signed header binding a token to one gateway; lib/client/iam-oauthbearer.ts signs the same. */
export const GATEWAY_ID_HEADER = 'x-sluice-gateway-id';

export interface IamTokenPolicy {
  /** Whether a token may be sent to this host (`hostname[:port]`, lower case). */
  readonly stsHostAllowed: (host: string) => boolean;
  /** The scheme the trusted endpoints use; 'http:' only for a test endpoint. */
  readonly protocol: 'https:' | 'http:';
  /** Longest X-Amz-Expires accepted, in seconds. */
  readonly maxLifetimeSeconds: number;
  /** How far in the future a token's date may be (client clocks run fast). */
  readonly clockSkewMs: number;
}

export interface PresignedCallerIdentity {
  /** The request to send to STS, rebuilt from the checked parts only. */
  readonly url: string;
  /** When the signature stops being valid (ms since epoch). */
  readonly expiresAt: number;
  /** The signing key id (AKIA… or ASIA…), for logs: it names the credentials, not a secret. */
  readonly accessKeyId: string;
}

const ALLOWED_PARAMETERS = new Set([
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
]);
const REQUIRED_PARAMETERS = [...ALLOWED_PARAMETERS].filter((p) => p !== 'X-Amz-Security-Token');
/** Commercial, GovCloud and China regional STS endpoints (FIPS too); never the global one, never a look-alike. */
const AWS_STS_HOST = /^sts(-fips)?\.([a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d)\.amazonaws\.com(\.cn)?$/;
const MAX_TOKEN_CHARS = 8192;

/** The regional STS host names of AWS (what a gateway without a configured endpoint trusts). */
export function isAwsStsHost(host: string): boolean {
  const m = AWS_STS_HOST.exec(host);
  // amazonaws.com.cn serves only the cn- regions, and they only it.
  return m !== null && (m[4] === '.cn') === m[2].startsWith('cn-');
}

function parseAmzDate(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  // Reject 20261331T… and the like, which Date.UTC would roll over.
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return ms;
}

function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Decodes and checks a token; throws SaslAuthenticationError naming the first check it fails. */
export function checkIamToken(token: string, policy: IamTokenPolicy, now: number): PresignedCallerIdentity {
  const fail = (why: string): never => {
    throw new SaslAuthenticationError(`IAM token refused: ${why}`);
  };
  if (token.length > MAX_TOKEN_CHARS) fail(`longer than ${MAX_TOKEN_CHARS} characters`);
  if (!/^[A-Za-z0-9_-]+$/.test(token)) fail('not base64url (RFC 4648 section 5, without padding)');
  const text = Buffer.from(token, 'base64url').toString('utf8');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail('not a URL');
  }
  if (url.protocol !== policy.protocol) fail(`the STS request must use ${policy.protocol.slice(0, -1)}`);
  if (url.username || url.password) fail('the URL must not carry user information');
  if (url.hash) fail('the URL must not have a fragment');
  const host = url.host.toLowerCase();
  if (!policy.stsHostAllowed(host)) fail(`'${host.slice(0, 100)}' is not an STS endpoint this gateway trusts`);
  if (url.pathname !== '/') fail('the STS request path must be /');

  const params = new Map<string, string>();
  const seen = new Set<string>();
  for (const [name, value] of url.searchParams) {
    if (!ALLOWED_PARAMETERS.has(name)) fail(`unexpected query parameter '${name.slice(0, 40)}'`);
    // STS reads parameter names case-insensitively: a second spelling is a second value.
    if (seen.has(name.toLowerCase())) fail(`query parameter '${name}' appears twice`);
    seen.add(name.toLowerCase());
    params.set(name, value);
  }
  for (const name of REQUIRED_PARAMETERS) if (!params.has(name)) fail(`missing query parameter '${name}'`);
  if (params.get('Action') !== 'GetCallerIdentity') fail('the action must be GetCallerIdentity');
  if (params.get('Version') !== '2011-06-15') fail('the STS API version must be 2011-06-15');
  if (params.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') fail('the signature algorithm must be AWS4-HMAC-SHA256');
  const signedHeaders = params.get('X-Amz-SignedHeaders')!.split(';');
  if (signedHeaders.length !== 2 || !signedHeaders.includes('host') || !signedHeaders.includes(GATEWAY_ID_HEADER)) {
    fail(`the signed headers must be host and ${GATEWAY_ID_HEADER}`);
  }
  if (!/^[0-9a-f]{64}$/.test(params.get('X-Amz-Signature')!)) fail('malformed signature');

  const credential = /^([A-Z0-9]{16,128})\/(\d{8})\/([a-z0-9-]{1,32})\/sts\/aws4_request$/.exec(params.get('X-Amz-Credential')!);
  if (!credential) fail('the credential scope must be <key id>/<date>/<region>/sts/aws4_request');
  const signedAt = parseAmzDate(params.get('X-Amz-Date')!);
  if (signedAt === undefined) fail('malformed X-Amz-Date');
  if (params.get('X-Amz-Date')!.slice(0, 8) !== credential![2]) fail('the credential scope date differs from X-Amz-Date');
  const hostRegion = AWS_STS_HOST.exec(host)?.[2];
  if (hostRegion !== undefined && hostRegion !== credential![3]) fail(`signed for region ${credential![3]} but sent to ${host}`);
  const expires = params.get('X-Amz-Expires')!;
  if (!/^[1-9]\d{0,6}$/.test(expires)) fail('malformed X-Amz-Expires');
  if (Number(expires) > policy.maxLifetimeSeconds) fail(`X-Amz-Expires exceeds ${policy.maxLifetimeSeconds} seconds`);
  const expiresAt = signedAt! + Number(expires) * 1000;
  if (now >= expiresAt) fail('the token has expired');
  if (signedAt! > now + policy.clockSkewMs) fail('the token is dated in the future');

  // Rebuilt from the checked values, so nothing but them reaches STS.
  const query = [...params].map(([k, v]) => `${encodeRfc3986(k)}=${encodeRfc3986(v)}`).join('&');
  return { url: `${url.protocol}//${host}/?${query}`, expiresAt, accessKeyId: credential![1] };
}
