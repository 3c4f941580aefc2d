// pctl role-bindings create --parent GROUP --identity UID --role ROLE (ROLE: uid or name, e.g. viewer)
import { roleBindings } from '../../../api/resources.js';
import { uidRefProblem, type CreateRoleBindingBody } from '../../../api/schemas.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { resolveRole } from '../../shared/roles.js';
import { checkField, checkNotEmpty } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { createFlags } from './index.js';

type CreateRoleBindingFlags = FlagValues<typeof createFlags>;

export async function run(ctx: Context, _args: string[], opts: CreateRoleBindingFlags): Promise<number> {
  checkNotEmpty('parent', opts.parent);
  checkNotEmpty('identityUid', opts.identity);
  checkNotEmpty('roleUid', opts.role);
  checkField('identityUid', uidRefProblem, opts.identity);
  const client = await ctx.client();
  const parent = (await groupUid(ctx, opts.parent, '--parent'))!;
  const role = await resolveRole(client, opts.role);
  const body: CreateRoleBindingBody = { parent, roleBinding: { identityUid: opts.identity, roleUid: role.uid } };
  return printResource(ctx, views.roleBindings, await client.create(roleBindings, body));
}
