// The dispatcher's metrics, per subscription (dimension `subscription`, metric-names.ts), and the
// counters a dispatcher run reports. CloudWatch gets them as EMF lines when metrics are enabled
// (inside Lambda); the counters are always kept.
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SluiceContext } from '../context.js';
import { SUBSCRIPTION_DIMENSION, SubscriptionMetric } from '../observability/metric-names.js';

/** What a dispatcher did: the poller Lambda returns it, `npm start` logs it on stop. */
export interface DispatchReport {
  /** Delivery leases taken (a partition taken again after losing it counts again). */
  leasesTaken: number;
  /** Leases lost to another poller (expired, taken over, or the subscription deleted). */
  leasesLost: number;
  batchesDelivered: number;
  recordsDelivered: number;
  deliveryFailures: number;
  onFailureRecords: number;
  /** Unexpected errors (storage failures), logged; the dispatcher carried on. */
  errors: number;
}

export function emptyReport(): DispatchReport {
  return { leasesTaken: 0, leasesLost: 0, batchesDelivered: 0, recordsDelivered: 0, deliveryFailures: 0, onFailureRecords: 0, errors: 0 };
}

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/**
 * `subscription`'s metrics, each as its own EMF line: a Powertools single metric keeps the
 * dimension to itself, and publishes (then forgets its dimensions) at each addMetric.
 */
function emit(ctx: SluiceContext, subscription: string, values: readonly [string, Unit, number][]): void {
  if (!ctx.metrics.enabled) return;
  for (const [name, unit, value] of values) {
    const single = ctx.metrics.emf.singleMetric();
    single.addDimension(SUBSCRIPTION_DIMENSION, subscription);
    single.addMetric(name, unit, value);
  }
}

export const deliveryMetrics = {
  delivered(ctx: SluiceContext, subscription: string, records: number, batches: number): void {
    emit(ctx, subscription, [
      [SubscriptionMetric.DeliveredRecords, MetricUnit.Count, records],
      [SubscriptionMetric.DeliveredBatches, MetricUnit.Count, batches],
    ]);
  },
  failed(ctx: SluiceContext, subscription: string): void {
    emit(ctx, subscription, [[SubscriptionMetric.DeliveryFailures, MetricUnit.Count, 1]]);
  },
  gaveUp(ctx: SluiceContext, subscription: string, records: number): void {
    emit(ctx, subscription, [[SubscriptionMetric.OnFailureRecords, MetricUnit.Count, records]]);
  },
  /** Where a partition stands: records behind the log end, and the age of the oldest of them. */
  position(ctx: SluiceContext, subscription: string, offsetLag: number, iteratorAgeMs: number): void {
    emit(ctx, subscription, [
      [SubscriptionMetric.OffsetLag, MetricUnit.Count, offsetLag],
      [SubscriptionMetric.IteratorAge, MetricUnit.Milliseconds, iteratorAgeMs],
    ]);
  },
};
