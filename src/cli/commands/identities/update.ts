// pctl identities update UID [--name N] [--description D] [--issuer URL] [--subject S]
// The updateMask names exactly the flags given; issuer and subject are claimMatch.* fields.
import { identities } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { printResource } from '../../shared/get.js';
import { checkIssuer, checkNotEmpty, checkSomethingToUpdate } from '../../shared/validate.js';

export interface UpdateIdentityFlags {
  name?: string;
  description?: string;
  issuer?: string;
  subject?: string;
}

export async function run(ctx: Context, [uid]: string[], opts: UpdateIdentityFlags): Promise<number> {
  const fields: Record<string, unknown> = {};
  const claimMatch: Record<string, string> = {};
  const mask: string[] = [];
  if (opts.name !== undefined) {
    checkNotEmpty('name', opts.name);
    fields.name = opts.name;
    mask.push('name');
  }
  if (opts.description !== undefined) {
    fields.description = opts.description;
    mask.push('description');
  }
  if (opts.issuer !== undefined) {
    checkNotEmpty('claimMatch.issuer', opts.issuer);
    checkIssuer(opts.issuer);
    claimMatch.issuer = opts.issuer;
    mask.push('claimMatch.issuer');
  }
  if (opts.subject !== undefined) {
    checkNotEmpty('claimMatch.subject', opts.subject);
    claimMatch.subject = opts.subject;
    mask.push('claimMatch.subject');
  }
  if (Object.keys(claimMatch).length) fields.claimMatch = claimMatch;
  checkSomethingToUpdate(mask, ['--name', '--description', '--issuer', '--subject']);
  const client = await ctx.client();
  return printResource(ctx, views.identities, await client.update(identities, uid!, fields, mask));
}
