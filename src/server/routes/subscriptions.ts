// /events/v2/subscriptions: create (parent group in the body, as every create of this API) and
// delete; list and get are the generic ones; no update (405), as the vendor's v2 API.
import { capability, groups, subscriptions as SB } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import { authorize, insertChild, mustGet, now, parseBody, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import { records, subscriptionToWire } from '../models.js';
import { resourceRoutes } from './resource.js';

export function subscriptionRoutes(ctx: ServerContext): ResourceRoutes {
  const { store } = ctx;
  return resourceRoutes(ctx, SB, {
    create: async (req) => {
      const body = parseBody(S.CreateSubscriptionBody, await req.json());
      authorize(ctx, req.principal, capability(SB, 'create'), groups, body.parent, 'parent');
      const rec = records.subscription({ parent: body.parent, sink: body.subscription.sink, createTime: now(ctx) });
      return { body: subscriptionToWire(await insertChild(ctx, rec)) };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, capability(SB, 'delete'), SB, req.uid);
      await store.write(() => store.remove(mustGet(ctx, SB, req.uid).uid));
      return {};
    },
  });
}
