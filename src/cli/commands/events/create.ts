// pctl events subscriptions create --parent GROUP --sink URL
import { subscriptions } from '../../../api/resources.js';
import { sinkProblem, type CreateSubscriptionBody } from '../../../api/schemas.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { checkField } from '../../shared/validate.js';
import type { createFlags } from './index.js';

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof createFlags>): Promise<number> {
  checkField('sink', sinkProblem, opts.sink);
  const client = await ctx.client();
  const parent = (await groupUid(ctx, opts.parent, '--parent'))!;
  const body: CreateSubscriptionBody = { parent, subscription: { sink: opts.sink } };
  return printResource(ctx, subscriptions.view, await client.create(subscriptions, body));
}
