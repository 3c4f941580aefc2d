// pctl invites redeem CODE: POST /iam/v2/groupInvites:redeem with the caller's own token (an
// extension of pctl serve); prints the role binding it made.
import { groupInvites, roleBindings } from '../../../api/resources.js';
import { wireSchema } from '../../../api/schemas.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { checkNotEmpty } from '../../shared/validate.js';

export async function run(ctx: Context, [code]: string[]): Promise<number> {
  checkNotEmpty('code', code);
  const client = await ctx.client();
  const binding = await client.action(groupInvites, 'redeem', { code }, wireSchema(roleBindings));
  return printResource(ctx, roleBindings.view, binding);
}
