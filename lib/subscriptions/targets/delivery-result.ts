// What one delivery to a target came to. Targets never throw: every failure (a function error, a
// non-2xx answer, a timeout, a refused connection) is a failed delivery that the dispatcher retries.
export type DeliveryResult = { readonly ok: true; readonly response: unknown } | { readonly ok: false; readonly error: string };

/** A response body as JSON when it is JSON, else undefined (a plain 200 is a success without item failures). */
export function parseResponse(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
