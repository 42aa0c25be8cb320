// Test helper: one HTTP-shaped request through handleHttp, the JSON body parsed.
import type { SluiceContext } from '../../lib/context.js';
import { handleHttp } from '../../lib/api/router.js';

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export async function call(
  ctx: SluiceContext,
  method: string,
  path: string,
  body?: unknown,
  query?: Record<string, string>,
): Promise<CallResult> {
  const res = await handleHttp(ctx, {
    method,
    path,
    query,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined };
}
