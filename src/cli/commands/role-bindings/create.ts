// pctl role-bindings create --parent GROUP --identity IDENTITY --role ROLE: the group and the identity
// by any reference (uid, name, uid suffix; a group also by name path), the role by uid or name
import { identities, roleBindings } from '../../../api/resources.js';
import type { CreateRoleBindingBody } from '../../../api/schemas.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { groupUid, resolver } from '../../shared/resolve.js';
import { resolveRole } from '../../shared/roles.js';
import { checkNotEmpty } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { createFlags } from './index.js';

type CreateRoleBindingFlags = FlagValues<typeof createFlags>;

export async function run(ctx: Context, _args: string[], opts: CreateRoleBindingFlags): Promise<number> {
  checkNotEmpty('parent', opts.parent);
  checkNotEmpty('identityUid', opts.identity);
  checkNotEmpty('roleUid', opts.role);
  const client = await ctx.client();
  const parent = (await groupUid(ctx, opts.parent, '--parent'))!;
  const identityUid = await resolver(ctx).uid(identities, opts.identity, '--identity');
  const role = await resolveRole(client, opts.role, '--role');
  const body: CreateRoleBindingBody = { parent, roleBinding: { identityUid, roleUid: role.uid } };
  return printResource(ctx, views.roleBindings, await client.create(roleBindings, body));
}
