// pctl roles update ROLE [--name N] [--description D] [--capability CAP…]: the updateMask names
// exactly the flags given; --capability replaces the whole set. Built-in roles are read-only.
import { roles } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { parseCapabilities } from '../../shared/capabilities.js';
import { FieldMask } from '../../shared/field-mask.js';
import { printResource } from '../../shared/get.js';
import { resolveRole } from '../../shared/roles.js';
import { checkFields, checkSomethingToUpdate } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { updateFlags } from './index.js';

type UpdateRoleFlags = FlagValues<typeof updateFlags>;

export async function run(ctx: Context, [role]: string[], opts: UpdateRoleFlags): Promise<number> {
  checkFields('role', { name: opts.name, description: opts.description });
  const change = new FieldMask()
    .set('name', opts.name)
    .set('description', opts.description)
    .set('capabilities', opts.capability === undefined ? undefined : parseCapabilities(opts.capability));
  checkSomethingToUpdate(change.mask, ['--name', '--description', '--capability']);
  const client = await ctx.client();
  const target = await resolveRole(client, role!);
  return printResource(ctx, views.roles, await client.update(roles, target.uid, change.fields, change.mask));
}
