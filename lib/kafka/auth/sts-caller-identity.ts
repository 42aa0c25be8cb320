// Sends a checked, presigned GetCallerIdentity request (iam-token.ts) to STS with this gateway's
// id in the signed header, and reads the caller from STS's answer:
//
//   <GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
//     <GetCallerIdentityResult>
//       <Arn>arn:aws:sts::123456789012:assumed-role/Writer/session</Arn>
//       <UserId>AROA…:session</UserId>
//       <Account>123456789012</Account>
//     </GetCallerIdentityResult>
//     <ResponseMetadata><RequestId>…</RequestId></ResponseMetadata>
//   </GetCallerIdentityResponse>
//
// and on refusal `<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code>…`. Redirects are never
// followed (the request goes to the host the token names and nowhere else), the answer is read
// up to a size limit, and the whole exchange has a deadline.
import { GATEWAY_ID_HEADER } from './iam-token.js';
import { SaslAuthenticationError } from './sasl-authentication-error.js';

export interface CallerIdentity {
  /** The caller's ARN: an IAM user, an assumed-role session, a federated user or the root. */
  readonly arn: string;
  readonly account: string;
  readonly userId: string;
}

export interface StsRequestOptions {
  readonly gatewayId: string;
  readonly timeoutMs: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;
const ARN = /^arn:aws[a-z-]*:(iam|sts)::(\d{12}):[\x21-\x7E]{1,2000}$/;

function decodeXmlText(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The text of the one `<name>` element inside `xml`, or undefined (a repeated element is refused). */
function element(xml: string, name: string): string | undefined {
  const matches = [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))];
  return matches.length === 1 ? decodeXmlText(matches[0][1].trim()) : undefined;
}

async function readLimited(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) throw new SaslAuthenticationError(`STS answered with more than ${MAX_RESPONSE_BYTES} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses GetCallerIdentity's XML answer; throws when it is not one. */
export function parseCallerIdentity(xml: string): CallerIdentity {
  const result = /<GetCallerIdentityResult>([\s\S]*)<\/GetCallerIdentityResult>/.exec(xml)?.[1];
  if (result === undefined || !/^\s*<GetCallerIdentityResponse[\s>]/.test(xml.replace(/^<\?xml[^>]*\?>/, ''))) {
    throw new SaslAuthenticationError('STS answered without a GetCallerIdentityResult');
  }
  const arn = element(result, 'Arn');
  const account = element(result, 'Account');
  const userId = element(result, 'UserId');
  const arnMatch = arn === undefined ? null : ARN.exec(arn);
  if (!arnMatch || account === undefined || !/^\d{12}$/.test(account) || userId === undefined || userId === '') {
    throw new SaslAuthenticationError('STS answered with a malformed caller identity');
  }
  if (arnMatch[2] !== account) throw new SaslAuthenticationError('STS answered with an ARN outside the caller\'s account');
  return { arn: arn!, account, userId };
}

/** STS's error code and message from an ErrorResponse, for the client's error message. */
function stsError(xml: string): string {
  const code = element(xml, 'Code');
  const message = element(xml, 'Message');
  return code ? `${code}${message ? `: ${message.slice(0, 300)}` : ''}` : 'no error code';
}

export async function fetchCallerIdentity(url: string, options: StsRequestOptions): Promise<CallerIdentity> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'GET',
      headers: { [GATEWAY_ID_HEADER]: options.gatewayId, accept: 'text/xml' },
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (e) {
    const why = e instanceof Error && e.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : 'unreachable';
    throw new SaslAuthenticationError(`could not verify the IAM token: STS is ${why}`, { cause: e });
  }
  const body = await readLimited(response);
  if (response.status === 200) return parseCallerIdentity(body);
  if (response.status >= 300 && response.status < 400) throw new SaslAuthenticationError(`STS answered with a redirect (HTTP ${response.status}), which is not followed`);
  if (response.status >= 500) throw new SaslAuthenticationError(`could not verify the IAM token: STS failed (HTTP ${response.status}, ${stsError(body)})`);
  throw new SaslAuthenticationError(`STS refused the IAM token (HTTP ${response.status}, ${stsError(body)})`);
}
