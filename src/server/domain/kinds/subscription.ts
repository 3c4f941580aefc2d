// A subscription (events domain): a webhook sink under a group. The sink is the name column:
// what NAME shows, order_by=name sorts and a reference may give; no data of its own.
import type { Record_ } from '../../store/record.js';
import { record, type Base, type WireOut } from './build.js';

export type SubscriptionData = Record<string, never>;

export const subscription = (b: Base & { parent: string; sink: string }) => record('subscription', b.parent, b.sink, null, b, {});

export function subscriptionToWire(r: Record_<'subscription'>): WireOut<'Subscription'> {
  return { uid: r.uid, sink: r.name, createTime: r.createTime, updateTime: r.updateTime };
}
