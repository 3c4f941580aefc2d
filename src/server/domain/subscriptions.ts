// Subscriptions (events domain): a webhook sink under a group. Create and delete; no update.
// Every change committed in the group or below is delivered to the sink (src/server/surfaces/events/).
import { invalidField } from '../../api/errors.js';
import { capabilities, groups as G, subscriptions as SB } from '../../api/registry/index.js';
import { sinkProblem } from '../../api/schemas.js';
import { sinkHostProblem } from './sink-address.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, insertChild, mustGet, now, type DomainContext } from './context.js';
import { readOperations } from './reads.js';
import { records } from './kinds/index.js';

export interface NewSubscription {
  parent: string;
  /** https, or http to a loopback host (sinkProblem; REST's body schema checks it too, RPC callers reach only this). */
  sink: string;
}

/** In a write: a new subscription in an existing group (the create operation's and seeds'). */
export function insertSubscription(ctx: DomainContext, input: NewSubscription): Record_<'subscription'> {
  return insertChild(ctx, records.subscription({ parent: input.parent, sink: input.sink, createTime: now(ctx) }));
}

export function subscriptionOperations(ctx: DomainContext) {
  return {
    ...readOperations(ctx, SB),

    async create(principal: Principal, input: NewSubscription): Promise<Record_<'subscription'>> {
      authorize(ctx, principal, capabilities(SB, 'create'), G, input.parent, 'parent');
      // The scheme rule always; private addresses by name here, and by the addresses the name
      // resolves to when a delivery connects (events/deliverer.ts).
      const problem = sinkProblem(input.sink) ?? (ctx.allowPrivateSinks ? undefined : sinkHostProblem(input.sink));
      if (problem) throw invalidField('sink', problem);
      return commit(ctx, principal, 'subscriptions.create', () => insertSubscription(ctx, input));
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      authorize(ctx, principal, capabilities(SB, 'delete'), SB, uid);
      await commit(ctx, principal, 'subscriptions.delete', () => ctx.store.remove(mustGet(ctx, SB, uid).uid));
    },
  };
}
