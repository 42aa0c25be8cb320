// SASL/OAUTHBEARER with IAM tokens: the gateway's one SASL mechanism. One step: the client's
// initial response carries the token (oauthbearer-client-response.ts), the token is checked
// locally (iam-token.ts), STS says who signed it (sts-caller-identity.ts), and the allow-list
// decides whether that principal may connect (principal-allow-list.ts). The session lasts until
// the token expires: the client re-authenticates before then (KIP-368), as with Kafka's own
// OAUTHBEARER, whose session lifetime is the token's.
import { checkIamToken, isAwsStsHost } from './iam-token.js';
import { parseOAuthBearerClientResponse } from './oauthbearer-client-response.js';
import { type PrincipalAllowList, parsePrincipalAllowList, principalAllowed } from './principal-allow-list.js';
import { SaslAuthenticationError } from './sasl-authentication-error.js';
import { type CallerIdentity, fetchCallerIdentity } from './sts-caller-identity.js';

export const OAUTHBEARER = 'OAUTHBEARER';

export interface IamAuthenticatorOptions {
  /**
   * This gateway's id, which clients sign into their tokens: the host name they bootstrap from
   * (the load balancer's DNS name or the domain pointing at it).
   */
  readonly gatewayId: string;
  /**
   * The one STS endpoint tokens may name and the gateway calls, e.g. a test's STS emulator.
   * @default - any regional STS endpoint of AWS (https://sts.<region>.amazonaws.com[.cn])
   */
  readonly stsEndpoint?: string;
  /**
   * Account ids and ARNs admitted (principal-allow-list.ts).
   * @default [] - every principal STS vouches for
   */
  readonly allowedPrincipals?: readonly string[];
  /** Longest token lifetime accepted. @default 900 */
  readonly maxTokenLifetimeSeconds?: number;
  /** How far a token's date may lie in the future. @default 300000 (5 minutes, as SigV4 allows) */
  readonly clockSkewMs?: number;
  /** Deadline of the STS call. @default 5000 */
  readonly stsTimeoutMs?: number;
  /**
   * STS calls in flight at most: beyond it an authentication fails at once (the client retries),
   * so a flood of unauthenticated connections cannot make the gateway flood STS.
   * @default 64
   */
  readonly maxConcurrentVerifications?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** An authenticated SASL session. */
export interface SaslSession {
  /** The Kafka principal: the caller's ARN. */
  readonly principal: string;
  readonly identity: CallerIdentity;
  /** When the session ends unless the client re-authenticates (ms since epoch). */
  readonly expiresAt: number;
}

/** A single-step SASL mechanism as the gateway runs it. */
export interface SaslMechanism {
  readonly name: string;
  /** Verifies the client's (only) message; throws SaslAuthenticationError when it does not authenticate. */
  authenticate(authBytes: Buffer): Promise<SaslSession>;
}

export class IamOAuthBearerAuthenticator implements SaslMechanism {
  readonly name = OAUTHBEARER;
  readonly gatewayId: string;
  private readonly allowList: PrincipalAllowList;
  private readonly stsHostAllowed: (host: string) => boolean;
  private readonly protocol: 'https:' | 'http:';
  private readonly maxLifetimeSeconds: number;
  private readonly clockSkewMs: number;
  private readonly stsTimeoutMs: number;
  private readonly maxConcurrentVerifications: number;
  private verifying = 0;
  private readonly now: () => number;

  constructor(options: IamAuthenticatorOptions) {
    this.gatewayId = options.gatewayId.trim().toLowerCase();
    if (!this.gatewayId) throw new Error('IAM authentication needs a gateway id (the host name clients bootstrap from)');
    this.allowList = parsePrincipalAllowList(options.allowedPrincipals ?? []);
    if (options.stsEndpoint) {
      const endpoint = new URL(options.stsEndpoint);
      if (endpoint.protocol !== 'https:' && endpoint.protocol !== 'http:') throw new Error(`stsEndpoint ${options.stsEndpoint}: only https (or http for a test endpoint)`);
      const host = endpoint.host.toLowerCase();
      this.stsHostAllowed = (h) => h === host;
      this.protocol = endpoint.protocol;
    } else {
      this.stsHostAllowed = isAwsStsHost;
      this.protocol = 'https:';
    }
    this.maxLifetimeSeconds = options.maxTokenLifetimeSeconds ?? 900;
    this.clockSkewMs = options.clockSkewMs ?? 300_000;
    this.stsTimeoutMs = options.stsTimeoutMs ?? 5000;
    this.maxConcurrentVerifications = options.maxConcurrentVerifications ?? 64;
    this.now = options.now ?? Date.now;
  }

  async authenticate(authBytes: Buffer): Promise<SaslSession> {
    const response = parseOAuthBearerClientResponse(authBytes);
    const request = checkIamToken(
      response.token,
      { stsHostAllowed: this.stsHostAllowed, protocol: this.protocol, maxLifetimeSeconds: this.maxLifetimeSeconds, clockSkewMs: this.clockSkewMs },
      this.now(),
    );
    if (this.verifying >= this.maxConcurrentVerifications) {
      throw new SaslAuthenticationError(`${this.verifying} authentications are being verified with STS already; retry later`);
    }
    this.verifying++;
    let identity: CallerIdentity;
    try {
      identity = await fetchCallerIdentity(request.url, { gatewayId: this.gatewayId, timeoutMs: this.stsTimeoutMs });
    } finally {
      this.verifying--;
    }
    if (response.authorizationId !== undefined && response.authorizationId !== identity.arn) {
      throw new SaslAuthenticationError('the requested authorization id differs from the token\'s principal');
    }
    if (!principalAllowed(identity, this.allowList)) {
      throw new SaslAuthenticationError(`principal ${identity.arn} is not allowed to use this gateway`);
    }
    // STS accepted it, but it may have expired while STS answered.
    if (this.now() >= request.expiresAt) throw new SaslAuthenticationError('IAM token refused: the token has expired');
    return { principal: identity.arn, identity, expiresAt: request.expiresAt };
  }
}
