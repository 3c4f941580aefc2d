// pctl roles create NAME --parent GROUP --capability CAP… [--description D]: a custom role,
// usable in role bindings on GROUP and below.
import { roles } from '../../../api/resources.js';
import type { CreateRoleBody } from '../../../api/schemas.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseCapabilities } from '../../shared/capabilities.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { checkFields } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { createFlags } from './index.js';

type CreateRoleFlags = FlagValues<typeof createFlags>;

export async function run(ctx: Context, [name]: string[], opts: CreateRoleFlags): Promise<number> {
  if (!name) throw UsageError.invalidField('name', 'is required');
  checkFields('role', { name, description: opts.description });
  const capabilities = parseCapabilities(opts.capability);
  const body: CreateRoleBody = { parent: (await groupUid(ctx, opts.parent, '--parent'))!, role: { name, capabilities } };
  if (opts.description !== undefined) body.role.description = opts.description;
  const client = await ctx.client();
  return printResource(ctx, views.roles, await client.create(roles, body));
}
