// pctl groups update GROUP [--name N] [--description D]: the updateMask names exactly the flags given.
import { groups } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { FieldMask } from '../../shared/field-mask.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { checkFields, checkSomethingToUpdate } from '../../shared/validate.js';
import type { FlagValues } from '../../command.js';
import type { updateFlags } from './index.js';

type UpdateGroupFlags = FlagValues<typeof updateFlags>;

export async function run(ctx: Context, [uid]: string[], opts: UpdateGroupFlags): Promise<number> {
  checkFields('group', { name: opts.name, description: opts.description });
  const change = new FieldMask().set('name', opts.name).set('description', opts.description);
  checkSomethingToUpdate(change.mask, ['--name', '--description']);
  const target = (await groupUid(ctx, uid))!;
  const client = await ctx.client();
  return printResource(ctx, views.groups, await client.update(groups, target, change.fields, change.mask));
}
