// pctl identities create NAME --parent GROUP --issuer URL --subject S [--description D]
import { identities } from '../../../api/resources.js';
import type { CreateIdentityBody } from '../../../api/schemas.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { checkFields, checkNotEmpty } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { createFlags } from './index.js';

type CreateIdentityFlags = FlagValues<typeof createFlags>;

export async function run(ctx: Context, [name]: string[], opts: CreateIdentityFlags): Promise<number> {
  checkNotEmpty('name', name);
  checkNotEmpty('claimMatch.issuer', opts.issuer);
  checkNotEmpty('claimMatch.subject', opts.subject);
  checkFields('identity', { name, description: opts.description, 'claimMatch.issuer': opts.issuer, 'claimMatch.subject': opts.subject });
  const body: CreateIdentityBody = {
    parent: (await groupUid(ctx, opts.parent, '--parent'))!,
    identity: { name: name!, claimMatch: { issuer: opts.issuer, subject: opts.subject } },
  };
  if (opts.description !== undefined) body.identity.description = opts.description;
  const client = await ctx.client();
  return printResource(ctx, views.identities, await client.create(identities, body));
}
