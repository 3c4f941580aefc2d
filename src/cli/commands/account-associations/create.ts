// pctl account-associations create NAME --parent GROUP [--description D] [provider flags]
import { accountAssociations } from '../../../api/resources.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { checkNotEmpty } from '../../shared/validate.js';
import { nest, providerFields } from './fields.js';
import type { createFlags } from './index.js';

export async function run(ctx: Context, [name]: string[], opts: FlagValues<typeof createFlags>): Promise<number> {
  checkNotEmpty('name', name);
  const fields = nest([['name', name], ...(opts.description === undefined ? [] : [['description', opts.description] as [string, unknown]]), ...providerFields(opts)]);
  const client = await ctx.client();
  const parent = (await groupUid(ctx, opts.parent, '--parent'))!;
  return printResource(ctx, accountAssociations.view, await client.create(accountAssociations, { parent, accountAssociation: fields }));
}
