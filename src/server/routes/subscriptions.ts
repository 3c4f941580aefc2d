// /events/v2/subscriptions: create (parent group in the body, as every create of this API) and
// delete; list and get are the generic ones; no update (405), as the vendor's v2 API.
import { subscriptions as SB } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import type { ResourceRoutes } from '../handler.js';
import { subscriptionToWire } from '../models.js';
import { parseBody } from './parse.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function subscriptionRoutes(rest: RestContext): ResourceRoutes {
  const { domain } = rest;
  return resourceRoutes(rest, SB, domain.subscriptions, {
    create: async (req) => {
      const body = parseBody(S.CreateSubscriptionBody, await req.json());
      return { body: subscriptionToWire(await domain.subscriptions.create(req.principal, { parent: body.parent, sink: body.subscription.sink })) };
    },
    remove: async (req) => (await domain.subscriptions.delete(req.principal, req.uid), {}),
  });
}
