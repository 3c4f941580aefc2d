// pctl groups create NAME --parent GROUP (uid, name, name path or uid suffix) [--description D]
import { groups } from '../../../api/resources.js';
import type { CreateGroupBody } from '../../../api/schemas.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { checkFields } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { createFlags } from './index.js';

type CreateGroupFlags = FlagValues<typeof createFlags>;

export async function run(ctx: Context, [name]: string[], opts: CreateGroupFlags): Promise<number> {
  checkFields('group', { name: name!, description: opts.description });
  const body: CreateGroupBody = { parent: (await groupUid(ctx, opts.parent, '--parent'))!, group: { name: name! } };
  if (opts.description !== undefined) body.group.description = opts.description;
  const client = await ctx.client();
  return printResource(ctx, views.groups, await client.create(groups, body));
}
