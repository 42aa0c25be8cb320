// THE TEST'S STS EMULATOR (tests only; STS cannot run here). A local HTTP server that answers
// `GET /?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-…` as STS does for a presigned request:
// it re-computes the SigV4 query signature with @smithy/signature-v4 from the test credentials it
// knows (by access key id), over the headers the request names as signed, and answers STS's XML,
// GetCallerIdentityResponse or ErrorResponse (SignatureDoesNotMatch, InvalidClientTokenId,
// ExpiredToken…). It keeps every request it received so tests can prove one was never sent.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

export interface EmulatedPrincipal {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly arn: string;
  readonly userId: string;
}

export interface ReceivedStsRequest {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export interface StsEmulator {
  /** e.g. http://127.0.0.1:40123 */
  readonly endpoint: string;
  readonly requests: ReceivedStsRequest[];
  /** How long each answer waits (a slow STS): lets a test hold an authentication in flight. */
  delayMs: number;
  close(): Promise<void>;
}

const SIGV4_PARAMETERS = ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature', 'X-Amz-Security-Token'];

function errorXml(code: string, message: string): string {
  return `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>emulated</RequestId></ErrorResponse>`;
}

function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : undefined;
}

async function answer(url: URL, headers: IncomingHttpHeaders, principals: readonly EmulatedPrincipal[], now: number): Promise<{ status: number; body: string }> {
  const q = url.searchParams;
  const one = (name: string) => (q.getAll(name).length === 1 ? q.get(name)! : undefined);
  if (one('Action') !== 'GetCallerIdentity' || one('Version') !== '2011-06-15') {
    return { status: 400, body: errorXml('InvalidAction', 'Could not find operation ' + (q.get('Action') ?? '')) };
  }
  const credential = /^([A-Z0-9]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z]+)\/aws4_request$/.exec(one('X-Amz-Credential') ?? '');
  const date = parseAmzDate(one('X-Amz-Date') ?? '');
  const expires = Number(one('X-Amz-Expires'));
  const signedHeaders = (one('X-Amz-SignedHeaders') ?? '').split(';');
  const signature = one('X-Amz-Signature') ?? '';
  if (!credential || !date || !Number.isInteger(expires) || one('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || credential[4] !== 'sts') {
    return { status: 400, body: errorXml('IncompleteSignature', 'Request is missing or has malformed authentication parameters') };
  }
  const principal = principals.find((p) => p.accessKeyId === credential[1]);
  if (!principal) return { status: 403, body: errorXml('InvalidClientTokenId', 'The security token included in the request is invalid.') };
  if ((principal.sessionToken ?? undefined) !== (one('X-Amz-Security-Token') ?? undefined)) {
    return { status: 403, body: errorXml('InvalidClientTokenId', 'The security token included in the request is invalid.') };
  }
  const requestHeaders: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = headers[name];
    if (typeof value !== 'string') return { status: 403, body: errorXml('SignatureDoesNotMatch', `Signed header ${name} is missing`) };
    requestHeaders[name] = value;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of q) if (!SIGV4_PARAMETERS.includes(k)) query[k] = v;
  const signer = new SignatureV4({
    service: 'sts',
    region: credential[3],
    credentials: { accessKeyId: principal.accessKeyId, secretAccessKey: principal.secretAccessKey, sessionToken: principal.sessionToken },
    sha256: Sha256,
  });
  const expected = await signer.presign(
    { method: 'GET', protocol: 'http:', hostname: url.hostname, path: url.pathname, query, headers: requestHeaders },
    { signingDate: date, expiresIn: expires },
  );
  const want = Buffer.from(String(expected.query?.['X-Amz-Signature']));
  const got = Buffer.from(signature);
  if (want.length !== got.length || !timingSafeEqual(want, got)) {
    return { status: 403, body: errorXml('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.') };
  }
  if (now > date.getTime() + expires * 1000) return { status: 403, body: errorXml('ExpiredToken', 'The security token included in the request is expired') };
  const account = principal.arn.split(':')[4];
  return {
    status: 200,
    body:
      '<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">\n  <GetCallerIdentityResult>\n' +
      `    <Arn>${principal.arn}</Arn>\n    <UserId>${principal.userId}</UserId>\n    <Account>${account}</Account>\n` +
      '  </GetCallerIdentityResult>\n  <ResponseMetadata>\n    <RequestId>01234567-89ab-cdef-0123-456789abcdef</RequestId>\n  </ResponseMetadata>\n</GetCallerIdentityResponse>\n',
  };
}

export async function startStsEmulator(principals: readonly EmulatedPrincipal[], now: () => number = Date.now): Promise<StsEmulator> {
  const requests: ReceivedStsRequest[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const delay = new Promise((resolve) => setTimeout(resolve, emulator.delayMs));
    const reply = delay.then(() =>
      req.method === 'GET' ? answer(url, req.headers, principals, now()) : { status: 405, body: errorXml('InvalidAction', 'GET only') },
    );
    reply.then(
      ({ status, body }) => res.writeHead(status, { 'content-type': 'text/xml' }).end(body),
      (e) => res.writeHead(500, { 'content-type': 'text/xml' }).end(errorXml('InternalFailure', String(e))),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const emulator: StsEmulator = {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    delayMs: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return emulator;
}
