// Lambda targets: Invoke with InvocationType RequestResponse, the event as the payload. A
// FunctionError (the handler threw, timed out, ran out of memory) or a failed call is a failed
// delivery; otherwise the function's return value is the response (partial batch responses).
// The SDK finds the endpoint as usual (AWS_ENDPOINT_URL_LAMBDA for a local one); a function ARN's
// region picks the client's region.
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { type SluiceContext, cacheSlot } from '../../context.js';
import { parseResponse, type DeliveryResult } from './delivery-result.js';

export interface LambdaTargetOptions {
  /** The client for a region. @default one client per region and process (processLambdaClient) */
  readonly lambdaClient?: (region: string | undefined) => LambdaClient;
}

/** The process's Lambda clients, one per region (lib/context.ts: process state lives in its caches). */
const LAMBDA_CLIENTS = cacheSlot('lambdaClients', () => new Map<string, LambdaClient>());

export function processLambdaClient(ctx: SluiceContext, region: string | undefined): LambdaClient {
  const clients = ctx.caches.get(LAMBDA_CLIENTS);
  const key = region ?? '';
  let client = clients.get(key);
  if (!client) {
    client = new LambdaClient(region ? { region } : {});
    clients.set(key, client);
  }
  return client;
}

/** The region of a function ARN (`arn:aws:lambda:<region>:…`), undefined for a bare name. */
export function functionRegion(functionArn: string): string | undefined {
  return /^arn:aws[a-zA-Z-]*:lambda:([a-z0-9-]+):/.exec(functionArn)?.[1];
}

export async function invokeLambda(functionArn: string, body: string, options: Required<LambdaTargetOptions>): Promise<DeliveryResult> {
  const client = options.lambdaClient(functionRegion(functionArn));
  try {
    const out = await client.send(new InvokeCommand({ FunctionName: functionArn, InvocationType: 'RequestResponse', Payload: Buffer.from(body) }));
    const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
    if (out.FunctionError) return { ok: false, error: `FunctionError ${out.FunctionError}: ${text.slice(0, 300)}` };
    return { ok: true, response: parseResponse(text) };
  } catch (e) {
    return { ok: false, error: `Invoke failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` };
  }
}
