// CloudFormation custom resource `Custom::SluiceSubscription`, served by the admin function itself
// (its ARN is the resource's ServiceToken; infra/sluice-subscription.ts). CloudFormation invokes
// the function with a Create/Update/Delete request and waits for the answer PUT to the request's
// presigned ResponseURL; each request becomes a direct invoke of the admin function's own
// createSubscription / deleteSubscription operations, so CDK deploys go through the same
// validation, store and error codes as the HTTP API and the CLI.
//
// The resource's physical id is the subscription's name. Changing a property keeps the name and
// replaces the subscription (deleted, then created again from its startingPosition); a new name
// creates the new subscription and CloudFormation then deletes the old one. A failed Create
// answers a physical id that is no subscription name (`failed:<request id>`), so the rollback's
// Delete cannot remove a subscription of that name created by someone else. The handler always
// answers: an unanswered request would leave the stack waiting for an hour.
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import type { DirectInvokeEvent } from './lambda-adapter.js';
import type { InvokeResponse } from './router.js';

export const SUBSCRIPTION_RESOURCE_TYPE = 'Custom::SluiceSubscription';

/** The resource property holding the subscription (createSubscription's input) as one JSON string. */
export const SUBSCRIPTION_PROPERTY = 'Subscription';

const FAILED_PREFIX = 'failed:';

/** CloudFormation caps a response body at 4096 bytes; the reason is cut well below that. */
const MAX_REASON_CHARS = 1500;

export type InvokeOperation = (event: DirectInvokeEvent, context?: Context) => Promise<InvokeResponse>;

export interface CustomResourceAnswer {
  readonly Status: 'SUCCESS' | 'FAILED';
  readonly Reason?: string;
  readonly PhysicalResourceId: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  readonly Data?: Readonly<Record<string, string>>;
}

/** Whether `event` is a CloudFormation custom resource request for a Sluice subscription. */
export function isSubscriptionResourceEvent(event: unknown): event is CloudFormationCustomResourceEvent {
  const e = event as Partial<CloudFormationCustomResourceEvent> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.RequestType === 'string' &&
    typeof e.ResponseURL === 'string' &&
    e.ResourceType === SUBSCRIPTION_RESOURCE_TYPE
  );
}

class ResourceFailure extends Error {}

function subscriptionOf(properties: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const raw = properties[SUBSCRIPTION_PROPERTY];
  if (typeof raw !== 'string') throw new ResourceFailure(`resource property ${SUBSCRIPTION_PROPERTY} must be the subscription as a JSON string`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ResourceFailure(`resource property ${SUBSCRIPTION_PROPERTY} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ResourceFailure(`resource property ${SUBSCRIPTION_PROPERTY} must be a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function refusal(operation: string, reply: InvokeResponse): ResourceFailure {
  const error = (reply.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  return new ResourceFailure(`${operation}: ${error?.code ?? reply.status}: ${error?.message ?? JSON.stringify(reply.body)}`);
}

/** Physical ids of failed creates name no subscription; everything else is a subscription name. */
function ownsSubscription(physicalId: string): boolean {
  return !physicalId.startsWith(FAILED_PREFIX);
}

async function create(invoke: InvokeOperation, subscription: Record<string, unknown>, context?: Context): Promise<Record<string, string>> {
  const reply = await invoke({ ...subscription, op: 'createSubscription' }, context);
  if (reply.status !== 201) throw refusal('createSubscription', reply);
  const body = reply.body as { name: string; group: string; topic: string };
  return { Name: body.name, Group: body.group, Topic: body.topic };
}

async function remove(invoke: InvokeOperation, name: string, context?: Context): Promise<void> {
  const reply = await invoke({ op: 'deleteSubscription', name }, context);
  if (reply.status === 204) return;
  const code = (reply.body as { error?: { code?: string } } | undefined)?.error?.code;
  if (code === 'SUBSCRIPTION_NOT_FOUND') return; // already gone: deleting is idempotent
  throw refusal('deleteSubscription', reply);
}

/** Carries out one request; resolves with the answer CloudFormation must get (never rejects). */
export async function answerSubscriptionResource(
  event: CloudFormationCustomResourceEvent,
  invoke: InvokeOperation,
  context?: Context,
): Promise<CustomResourceAnswer> {
  const common = { StackId: event.StackId, RequestId: event.RequestId, LogicalResourceId: event.LogicalResourceId };
  const previousId = event.RequestType === 'Create' ? undefined : event.PhysicalResourceId;
  try {
    if (event.RequestType === 'Delete') {
      if (ownsSubscription(event.PhysicalResourceId)) await remove(invoke, event.PhysicalResourceId, context);
      return { ...common, Status: 'SUCCESS', PhysicalResourceId: event.PhysicalResourceId };
    }
    const subscription = subscriptionOf(event.ResourceProperties);
    const name = typeof subscription.name === 'string' ? subscription.name : '';
    // Same name on update: the old subscription must go before the new one can take the name.
    if (event.RequestType === 'Update' && event.PhysicalResourceId === name) await remove(invoke, name, context);
    const data = await create(invoke, subscription, context);
    return { ...common, Status: 'SUCCESS', PhysicalResourceId: data.Name, Data: data };
  } catch (e) {
    const reason = e instanceof ResourceFailure ? e.message : `internal error: ${e instanceof Error ? e.message : String(e)}`;
    return {
      ...common,
      Status: 'FAILED',
      Reason: reason.slice(0, MAX_REASON_CHARS),
      PhysicalResourceId: previousId ?? `${FAILED_PREFIX}${event.RequestId}`,
    };
  }
}

/** PUTs the answer to the presigned ResponseURL, as CloudFormation's cfn-response does (empty Content-Type). */
export async function sendCustomResourceAnswer(responseUrl: string, answer: CustomResourceAnswer): Promise<void> {
  const body = Buffer.from(JSON.stringify(answer));
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const res = await fetch(responseUrl, { method: 'PUT', headers: { 'content-type': '' }, body });
      if (res.ok) return;
      lastError = new Error(`response URL answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    } catch (e) {
      lastError = e;
    }
    await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
  }
  throw lastError;
}

/**
 * Wraps a Lambda handler serving direct-invoke events (createLambdaHandler's) so that it also serves
 * `Custom::SluiceSubscription` requests; every other event goes to `handler` unchanged.
 */
export function withSubscriptionResources<H extends (event: never, context?: Context) => Promise<unknown>>(handler: H): H {
  const invoke = handler as unknown as InvokeOperation;
  const wrapped = async (event: unknown, context?: Context) => {
    if (!isSubscriptionResourceEvent(event)) return (handler as unknown as (e: unknown, c?: Context) => Promise<unknown>)(event, context);
    const answer = await answerSubscriptionResource(event, invoke, context);
    await sendCustomResourceAnswer(event.ResponseURL, answer);
    return answer;
  };
  return wrapped as unknown as H;
}
