// pctl roles update ROLE [--name N] [--description D] [--capability CAP…]: the updateMask names
// exactly the flags given; --capability replaces the whole set. Built-in roles are read-only.
import { roles } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { parseCapabilities } from '../../shared/capabilities.js';
import { printResource } from '../../shared/get.js';
import { resolveRole } from '../../shared/roles.js';
import { checkSomethingToUpdate } from '../../shared/validate.js';

export interface UpdateRoleFlags {
  name?: string;
  description?: string;
  capability?: string[];
}

export async function run(ctx: Context, [role]: string[], opts: UpdateRoleFlags): Promise<number> {
  const fields: Record<string, unknown> = {};
  const mask: string[] = [];
  if (opts.name !== undefined) {
    fields.name = opts.name;
    mask.push('name');
  }
  if (opts.description !== undefined) {
    fields.description = opts.description;
    mask.push('description');
  }
  if (opts.capability !== undefined) {
    fields.capabilities = parseCapabilities(opts.capability);
    mask.push('capabilities');
  }
  checkSomethingToUpdate(mask, ['--name', '--description', '--capability']);
  const client = await ctx.client();
  const target = await resolveRole(client, role!);
  return printResource(ctx, views.roles, await client.update(roles, target.uid, fields, mask));
}
