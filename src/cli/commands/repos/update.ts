// pctl repos update REPO (uid, name or uid suffix) [--name N] [--description D]: the updateMask names exactly the flags given.
// Name and description are held to the server's rules before any request.
import { repos } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { FieldMask } from '../../shared/field-mask.js';
import { printResource } from '../../shared/get.js';
import { repoUid } from '../../shared/resolve.js';
import { checkFields, checkNotEmpty, checkSomethingToUpdate } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { updateFlags } from './index.js';

type UpdateRepoFlags = FlagValues<typeof updateFlags>;

export async function run(ctx: Context, [uid]: string[], opts: UpdateRepoFlags): Promise<number> {
  checkNotEmpty('name', opts.name);
  checkFields('repo', { name: opts.name, description: opts.description });
  const change = new FieldMask().set('name', opts.name).set('description', opts.description);
  checkSomethingToUpdate(change.mask, ['--name', '--description']);
  const target = await repoUid(ctx, uid!);
  const client = await ctx.client();
  return printResource(ctx, views.repos, await client.update(repos, target, change.fields, change.mask));
}
