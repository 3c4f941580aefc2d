// chainguard.platform.events.{v2,v2beta1}.SubscriptionsService on serve's subscriptions, and
// chainguard.platform.ping.{v2,v2beta1}.PingService.
import type { JsonValue } from '@bufbuild/protobuf';
import { SubscriptionsService as SubscriptionsV2 } from '../../../gen/chainguard/platform/events/v2/subscriptions_pb.js';
import { SubscriptionsService as SubscriptionsV2beta1 } from '../../../gen/chainguard/platform/events/v2beta1/subscriptions_pb.js';
import { PingService as PingV2 } from '../../../gen/chainguard/platform/ping/v2/ping_pb.js';
import { PingService as PingV2beta1 } from '../../../gen/chainguard/platform/ping/v2beta1/ping_pb.js';
import { wireFormOf } from '../wire.js';
import type { Record_, Store } from '../../store/store.js';
import { listOf, obj, pageJson, required, str, vendorServices, type DomainService } from './domain-calls.js';

const form = wireFormOf('Subscription');
const subscriptionJson = (r: Record_, store: Store) => form.toWire(r, store) as JsonValue;

const subscriptions: DomainService = {
  services: [SubscriptionsV2, SubscriptionsV2beta1],
  calls: {
    GetSubscription: async (c, r) => subscriptionJson(await c.domain.subscriptions.get(c.principal, required(r, 'uid')), c.store),
    ListSubscriptions: async (c, r) => {
      const page = await listOf(r, (p) => c.domain.subscriptions.list(c.principal, p), (uid) => c.domain.subscriptions.get(c.principal, uid));
      return pageJson('subscriptions', page, (i) => subscriptionJson(i, c.store));
    },
    CreateSubscription: async (c, r) => {
      const made = await c.domain.subscriptions.create(c.principal, { parent: required(r, 'parent'), sink: str(obj(r.subscription).sink) });
      return subscriptionJson(made, c.store);
    },
    DeleteSubscription: async (c, r) => (await c.domain.subscriptions.delete(c.principal, required(r, 'uid')), {}),
  },
};

const ping: DomainService = {
  services: [PingV2, PingV2beta1],
  // Answered before sign-in by the public route GET /ping/v2/ping (routes/ping.ts), which the dispatcher tries first.
  calls: { Ping: () => Promise.resolve({ response: 'pong' }) },
};

export const EVENTS_SERVICES = vendorServices([subscriptions, ping]);
