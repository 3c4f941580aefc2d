// pctl groups update GROUP [--name N] [--description D]: the updateMask names exactly the flags given.
import { groups } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { groupUid } from '../../shared/resolve.js';
import { checkGroupName, checkSomethingToUpdate } from '../../shared/validate.js';

export interface UpdateGroupFlags {
  name?: string;
  description?: string;
}

export async function run(ctx: Context, [uid]: string[], opts: UpdateGroupFlags): Promise<number> {
  const fields: Record<string, unknown> = {};
  const mask: string[] = [];
  if (opts.name !== undefined) {
    checkGroupName(opts.name);
    fields.name = opts.name;
    mask.push('name');
  }
  if (opts.description !== undefined) {
    fields.description = opts.description;
    mask.push('description');
  }
  checkSomethingToUpdate(mask, ['--name', '--description']);
  const target = (await groupUid(ctx, uid!))!;
  const client = await ctx.client();
  return printResource(ctx, views.groups, await client.update(groups, target, fields, mask));
}
