// pctl roles get ROLE, where ROLE is a uid or a role name (`viewer`).
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { resolveRole } from '../../shared/roles.js';

export async function run(ctx: Context, [role]: string[]): Promise<number> {
  const client = await ctx.client();
  return printResource(ctx, views.roles, await resolveRole(client, role!));
}
