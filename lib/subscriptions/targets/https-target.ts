// HTTPS targets: one POST per batch, the event as JSON, signed (signature.ts) with the
// subscription's secret; headers `Sluice-Subscription` (the name) and `Sluice-Signature`. A 2xx
// answer is a success (its JSON body may report item failures), anything else a failure.
import type { StoredSubscription } from '../subscription-store.js';
import { SIGNATURE_HEADER, signBody } from './signature.js';
import { parseResponse, type DeliveryResult } from './delivery-result.js';

export interface HttpsTargetOptions {
  /** Time a request may take, answer included. @default 30000 */
  readonly httpTimeoutMs?: number;
  /** Clock for the signature's timestamp. @default Date.now */
  readonly now?: () => number;
}

export async function invokeHttps(subscription: StoredSubscription, body: string, options: HttpsTargetOptions = {}): Promise<DeliveryResult> {
  if (subscription.target.type !== 'https') throw new Error(`subscription '${subscription.name}' has no https target`);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'sluice-subscriptions',
    'sluice-subscription': subscription.name,
  };
  if (subscription.signingSecret) headers[SIGNATURE_HEADER] = signBody(subscription.signingSecret, body, (options.now ?? Date.now)());
  try {
    const res = await fetch(subscription.target.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(options.httpTimeoutMs ?? 30_000) });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) return { ok: false, error: `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}` };
    return { ok: true, response: parseResponse(text) };
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, error: `${e instanceof Error ? e.message : String(e)}${cause ? ` (${cause.code ?? cause.message})` : ''}` };
  }
}
