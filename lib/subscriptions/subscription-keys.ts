// Keys of the subscription items in the single table (lib/metadata/keys.ts has the rest of the layout):
//
//   pk                        sk               item
//   SUBSCRIPTIONS             <name>           a subscription: topic, topic id, group, target, options
//   SUBSCRIPTION#<name>       LEASE#<p>        the delivery lease of partition <p>: owner, epoch, expiresAt
//
// Subscriptions live in their directory partition (few, small: listing is one Query, as for
// topics). Leases are rewritten every few seconds by their holders, so they keep a partition per
// subscription, and deleting a subscription removes them with one Query.
export const SUBSCRIPTIONS_PK = 'SUBSCRIPTIONS';
export const subscriptionKey = (name: string) => ({ pk: SUBSCRIPTIONS_PK, sk: name });
export const subscriptionPk = (name: string) => `SUBSCRIPTION#${name}`;
export const LEASE_PREFIX = 'LEASE#';
export const leaseKey = (name: string, partition: number) => ({ pk: subscriptionPk(name), sk: `${LEASE_PREFIX}${partition}` });
