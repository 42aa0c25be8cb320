// The signature of requests to HTTPS targets: `Sluice-Signature: t=<unix seconds>,v1=<hex>`, where
// <hex> is HMAC-SHA256, keyed with the subscription's signing secret, of `<t>.<raw request body>`.
// A receiver recomputes it over the body bytes it received, compares in constant time, and refuses
// a timestamp more than 5 minutes from its clock (a replayed request). README "Subscriptions"
// shows the check in a few lines; `verifySignature` is that check.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'sluice-signature';
/** How far a signed timestamp may be from the receiver's clock. */
export const SIGNATURE_TOLERANCE_MS = 300_000;

export function signatureOf(secret: string, timestampSeconds: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex');
}

/** The header value for `body` signed at `nowMs`. */
export function signBody(secret: string, body: string | Buffer, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${signatureOf(secret, t, body)}`;
}

/** Whether `header` is a valid signature of `body` under `secret`, made within the tolerance of `nowMs`. */
export function verifySignature(secret: string, header: string | undefined, body: string | Buffer, nowMs = Date.now(), toleranceMs = SIGNATURE_TOLERANCE_MS): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isSafeInteger(t) || !given || !/^[0-9a-f]{64}$/.test(given)) return false;
  if (Math.abs(nowMs - t * 1000) > toleranceMs) return false;
  return timingSafeEqual(Buffer.from(signatureOf(secret, t, body), 'hex'), Buffer.from(given, 'hex'));
}
