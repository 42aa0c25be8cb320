// IAM authentication to the Sluice Kafka gateway for kafkajs, over SASL/OAUTHBEARER, the way EKS
// and Vault authenticate IAM callers: the bearer token is an STS GetCallerIdentity request,
// presigned (SigV4 query signature) with the caller's own credentials, that the gateway sends to
// STS to learn who signed it. Nothing secret leaves the client: the token proves the identity for
// a few minutes and cannot do anything but ask STS "who am I".
//
// Token: base64url (no padding) of the presigned URL
//   https://sts.<region>.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15
//     &X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=<key id>/<yyyymmdd>/<region>/sts/aws4_request
//     &X-Amz-Date=<yyyymmddThhmmssZ>&X-Amz-Expires=<seconds>&X-Amz-SignedHeaders=host;x-sluice-gateway-id
//     [&X-Amz-Security-Token=<session token>]&X-Amz-Signature=<hex>
// The signed header `x-sluice-gateway-id: <gateway id>` binds the token to one gateway: the gateway
// sends its own id with the request, so a token made for another gateway (or stolen by one) fails
// STS's signature check there.
import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { SluiceClientError } from './errors.js';

/** The signed header that names the gateway a token is for (the gateway checks the same name). */
export const GATEWAY_ID_HEADER = 'x-sluice-gateway-id';

/** The longest token lifetime the gateway accepts by default. */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 900;

export interface IamOAuthBearerOptions {
  /**
   * The gateway the token is for: the host name clients bootstrap from (the load balancer's DNS
   * name, or the domain name that points at it). Must equal the gateway's `gatewayId`.
   */
  readonly gatewayId: string;
  /** Region of the STS endpoint that will verify the token. @default AWS_REGION, else AWS_DEFAULT_REGION */
  readonly region?: string;
  /** @default the SDK's Node provider chain (env, SSO, ini, ECS/EC2 metadata, ...) */
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /**
   * How long each token is valid. Temporary credentials that expire sooner shorten it, and the
   * gateway ends the session when the token expires, so kafkajs re-authenticates before then.
   * @default 900 (15 minutes)
   */
  readonly tokenLifetimeSeconds?: number;
  /**
   * The STS endpoint the token is signed for. Only for tests and private endpoints: the gateway
   * accepts the hosts it is configured with.
   * @default https://sts.<region>.amazonaws.com (.amazonaws.com.cn in China regions)
   */
  readonly stsEndpoint?: string;
}

/** kafkajs's `sasl` option for OAUTHBEARER. */
export interface OAuthBearerSasl {
  readonly mechanism: 'oauthbearer';
  readonly oauthBearerProvider: () => Promise<{ value: string }>;
}

export interface IamAuthToken {
  /** The OAUTHBEARER token: base64url of the presigned URL. */
  readonly value: string;
  /** When STS stops accepting it (ms since epoch). */
  readonly expiresAt: number;
}

/** The regional STS endpoint of a region (China regions live under amazonaws.com.cn). */
export function stsRegionalEndpoint(region: string): string {
  return `https://sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

/** RFC 3986 percent-encoding, as SigV4 canonicalizes query strings. */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `sasl` for kafkajs: each authentication (and re-authentication) gets a freshly signed token.
 *
 *   new Kafka({ brokers: ['kafka.example.com:9092'], ssl: true,
 *     sasl: iamOAuthBearerProvider({ region: 'eu-west-1', gatewayId: 'kafka.example.com' }) })
 */
export function iamOAuthBearerProvider(options: IamOAuthBearerOptions): OAuthBearerSasl {
  const signer = iamTokenSigner(options);
  return { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: (await signer()).value }) };
}

/** A function that makes a new token each call (signing is local: no network round trip). */
export function iamTokenSigner(options: IamOAuthBearerOptions): (now?: Date) => Promise<IamAuthToken> {
  const gatewayId = options.gatewayId?.trim().toLowerCase();
  if (!gatewayId) throw new SluiceClientError('INVALID_CONFIG', 'iamOAuthBearerProvider: gatewayId (the gateway\'s host name) is required');
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new SluiceClientError('INVALID_CONFIG', 'iamOAuthBearerProvider: no region (pass region, or set AWS_REGION)');
  const lifetime = options.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > 3600) {
    throw new SluiceClientError('INVALID_CONFIG', `iamOAuthBearerProvider: tokenLifetimeSeconds must be an integer 1-3600, got ${lifetime}`);
  }
  const endpoint = new URL(options.stsEndpoint ?? stsRegionalEndpoint(region));
  const credentials = options.credentials ?? fromNodeProviderChain();
  const resolveCredentials: AwsCredentialIdentityProvider = typeof credentials === 'function' ? credentials : async () => credentials;
  return async (now = new Date()) => {
    const identity = await resolveCredentials();
    // A token cannot outlive the credentials that signed it: STS refuses it once they expire.
    const credentialSeconds = identity.expiration ? Math.floor((identity.expiration.getTime() - now.getTime()) / 1000) : lifetime;
    const expiresIn = Math.min(lifetime, credentialSeconds);
    if (expiresIn < 1) throw new SluiceClientError('INVALID_CONFIG', 'iamOAuthBearerProvider: the AWS credentials have expired');
    const signer = new SignatureV4({ service: 'sts', region, credentials: identity, sha256: Sha256 });
    const presigned = await signer.presign(
      {
        method: 'GET',
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: endpoint.port ? Number(endpoint.port) : undefined,
        path: '/',
        query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
        headers: { host: endpoint.host, [GATEWAY_ID_HEADER]: gatewayId },
      },
      { expiresIn, signingDate: now },
    );
    const query = Object.entries(presigned.query ?? {})
      .map(([k, v]) => `${encodeRfc3986(k)}=${encodeRfc3986(String(v))}`)
      .join('&');
    const url = `${endpoint.protocol}//${endpoint.host}/?${query}`;
    // SigV4 dates have whole seconds: the expiry STS enforces is the truncated date plus expiresIn.
    const signedAt = Math.floor(now.getTime() / 1000) * 1000;
    return { value: Buffer.from(url, 'utf8').toString('base64url'), expiresAt: signedAt + expiresIn * 1000 };
  };
}
