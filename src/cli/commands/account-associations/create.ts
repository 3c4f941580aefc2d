// pctl account-associations create NAME --parent GROUP [--description D] [provider flags]
import { accountAssociations } from '../../../api/resources.js';
import { AccountAssociationFields, zodViolations } from '../../../api/schemas.js';
import type { FlagValues } from '../../command.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { checkNotEmpty } from '../../shared/validate.js';
import { nest, providerFields } from './fields.js';
import type { createFlags } from './index.js';

export async function run(ctx: Context, [name]: string[], opts: FlagValues<typeof createFlags>): Promise<number> {
  checkNotEmpty('name', name);
  const fields = nest([['name', name], ...(opts.description === undefined ? [] : [['description', opts.description] as [string, unknown]]), ...providerFields(opts)]);
  // The server's own check of the whole association, before anything is sent (exit 2, its wording).
  const checked = AccountAssociationFields.safeParse(fields);
  if (!checked.success) {
    const violations = zodViolations(checked.error);
    throw new UsageError(`Invalid argument: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`, violations);
  }
  const client = await ctx.client();
  const parent = (await groupUid(ctx, opts.parent, '--parent'))!;
  return printResource(ctx, accountAssociations.view, await client.create(accountAssociations, { parent, accountAssociation: fields }));
}
