// pctl account-associations update ASSOCIATION [--name N] [--description D] [provider flags]:
// the update mask names exactly the fields the flags set.
import { accountAssociations } from '../../../api/resources.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { resolver } from '../../shared/resolve.js';
import { checkSomethingToUpdate } from '../../shared/validate.js';
import { nest, providerFields } from './fields.js';
import type { updateFlags } from './index.js';

export async function run(ctx: Context, [ref]: string[], opts: FlagValues<typeof updateFlags>): Promise<number> {
  const fields: [string, unknown][] = [];
  if (opts.name !== undefined) fields.push(['name', opts.name]);
  if (opts.description !== undefined) fields.push(['description', opts.description]);
  fields.push(...providerFields(opts));
  const mask = fields.map(([f]) => f);
  checkSomethingToUpdate(mask, ['--name', '--description', '--aws-account', '--gcp-project-id', '--gcp-project-number', '--azure-tenant', '--azure-client']);
  const uid = await resolver(ctx).uid(accountAssociations, ref!);
  const client = await ctx.client();
  return printResource(ctx, accountAssociations.view, await client.update(accountAssociations, uid, nest(fields), mask));
}
