// The OAUTHBEARER client initial response (RFC 7628 section 3.1), as Kafka's clients send it in
// SaslAuthenticate's auth_bytes:
//
//   gs2-header kvsep *kvpair kvsep        kvsep = %x01
//   gs2-header = "n," [ "a=" saslname ] ","   (no channel binding: only "n")
//   kvpair     = key "=" value kvsep        key = 1*ALPHA, value = *(VCHAR / SP / HTAB / CR / LF)
//   the pair "auth" = "Bearer " token is required; the others are SASL extensions.
import { SaslAuthenticationError } from './sasl-authentication-error.js';

export interface OAuthBearerClientResponse {
  /** The authorization identity, when the client names one (`a=`); undefined means "the token's". */
  readonly authorizationId?: string;
  readonly token: string;
  readonly extensions: Readonly<Record<string, string>>;
}

const SEPARATOR = '\u0001';
const KEY = /^[A-Za-z]+$/;
// RFC 7628's value: visible characters, space, tab, CR, LF.
const VALUE = /^[\x21-\x7E \t\r\n]*$/;
// RFC 6750's b64token.
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

export function parseOAuthBearerClientResponse(bytes: Buffer): OAuthBearerClientResponse {
  const text = bytes.toString('latin1');
  const fail = (why: string): never => {
    throw new SaslAuthenticationError(`invalid OAUTHBEARER client response: ${why}`);
  };
  if (!text.endsWith(SEPARATOR + SEPARATOR)) fail('it must end with two %x01 separators');
  const parts = text.slice(0, -2).split(SEPARATOR);
  const gs2 = parts[0];
  const gs2Match = /^n,(a=([^,]*))?,$/.exec(gs2);
  if (!gs2Match) fail("the GS2 header must be 'n,,' or 'n,a=<authzid>,' (channel binding is not supported)");
  let authorizationId: string | undefined;
  if (gs2Match![2] !== undefined) {
    // saslname escapes ',' as =2C and '=' as =3D; any other '=' is malformed.
    if (/=(?!2C|3D)/.test(gs2Match![2])) fail('malformed authorization identity');
    authorizationId = gs2Match![2].replace(/=2C/g, ',').replace(/=3D/g, '=');
  }
  let token: string | undefined;
  const extensions: Record<string, string> = {};
  for (const pair of parts.slice(1)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) fail('a key=value pair is malformed');
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (!KEY.test(key) || !VALUE.test(value)) fail(`the pair '${key.slice(0, 20)}' has invalid characters`);
    if (key === 'auth') {
      if (token !== undefined) fail('auth appears twice');
      const bearer = /^Bearer +(\S+)$/i.exec(value);
      if (!bearer || !TOKEN.test(bearer[1])) fail("auth must be 'Bearer <token>'");
      token = bearer![1];
    } else {
      if (Object.hasOwn(extensions, key)) fail(`extension '${key}' appears twice`);
      extensions[key] = value;
    }
  }
  if (token === undefined) fail("no 'auth=Bearer <token>' pair");
  return { authorizationId, token: token!, extensions };
}
