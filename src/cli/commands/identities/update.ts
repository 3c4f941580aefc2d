// pctl identities update UID [--name N] [--description D] [--issuer URL] [--subject S]
// The updateMask names exactly the flags given; issuer and subject are claimMatch.* fields.
import { identities } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { FieldMask } from '../../shared/field-mask.js';
import { printResource } from '../../shared/get.js';
import { checkFields, checkNotEmpty, checkSomethingToUpdate } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { updateFlags } from './index.js';
import { resolver } from '../../shared/resolve.js';

type UpdateIdentityFlags = FlagValues<typeof updateFlags>;

export async function run(ctx: Context, [uid]: string[], opts: UpdateIdentityFlags): Promise<number> {
  checkNotEmpty('name', opts.name);
  checkNotEmpty('claimMatch.issuer', opts.issuer);
  checkNotEmpty('claimMatch.subject', opts.subject);
  checkFields('identity', { name: opts.name, description: opts.description, 'claimMatch.issuer': opts.issuer, 'claimMatch.subject': opts.subject });
  const change = new FieldMask()
    .set('name', opts.name)
    .set('description', opts.description)
    .set('claimMatch.issuer', opts.issuer)
    .set('claimMatch.subject', opts.subject);
  checkSomethingToUpdate(change.mask, ['--name', '--description', '--issuer', '--subject']);
  const client = await ctx.client();
  const target = await resolver(ctx).uid(identities, uid!);
  return printResource(ctx, views.identities, await client.update(identities, target, change.fields, change.mask));
}
