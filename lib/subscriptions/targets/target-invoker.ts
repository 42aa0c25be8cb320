// Delivering one batch to a subscription's target: the event as a JSON body, the answer as a
// success (with the parsed response, for partial batch responses) or a failure with its reason.
import type { SluiceContext } from '../../context.js';
import type { StoredSubscription } from '../subscription-store.js';
import type { DeliveryResult } from './delivery-result.js';
import { invokeHttps, type HttpsTargetOptions } from './https-target.js';
import { invokeLambda, processLambdaClient, type LambdaTargetOptions } from './lambda-target.js';

export type { DeliveryResult } from './delivery-result.js';

export interface TargetInvoker {
  /** Delivers `body` (the JSON of one event) to the subscription's target; never throws. */
  invoke(subscription: StoredSubscription, body: string): Promise<DeliveryResult>;
}

export type TargetOptions = HttpsTargetOptions & LambdaTargetOptions;

/** The invoker for both target types: Lambda's Invoke API, signed HTTPS POSTs. */
export function defaultInvoker(ctx: SluiceContext, options: TargetOptions = {}): TargetInvoker {
  const lambdaOptions = { lambdaClient: options.lambdaClient ?? ((region: string | undefined) => processLambdaClient(ctx, region)) };
  const httpsOptions = { now: ctx.now, ...options };
  return {
    invoke(subscription, body) {
      return subscription.target.type === 'lambda' ? invokeLambda(subscription.target.functionArn, body, lambdaOptions) : invokeHttps(subscription, body, httpsOptions);
    },
  };
}
