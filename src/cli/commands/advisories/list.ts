// pctl advisories list [--artifact NAME]… [--advisory-id ID]… [paging flags]
// Each repeat of a flag is one exact value, sent as a repeated artifactNames / advisoryIds
// query parameter (the server matches any of them).
import { advisories } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import { createPrinter } from '../../../output/print.js';
import type { Context } from '../../context.js';
import { paginateOptions, type PagingFlags } from '../../shared/list.js';
import { checkNotEmpty } from '../../shared/validate.js';

export interface AdvisoryListFlags extends PagingFlags {
  artifact?: string[];
  advisoryId?: string[];
}

export async function run(ctx: Context, _args: string[], opts: AdvisoryListFlags): Promise<number> {
  const { artifact, advisoryId, ...paging } = opts;
  const filters: Record<string, string[]> = {};
  if (artifact?.length) filters.artifactNames = artifact;
  if (advisoryId?.length) filters.advisoryIds = advisoryId;
  for (const v of artifact ?? []) checkNotEmpty('artifactNames', v);
  for (const v of advisoryId ?? []) checkNotEmpty('advisoryIds', v);
  const client = await ctx.client();
  const pages = client.list(advisories, { ...paginateOptions(paging), filters }).pages();
  await createPrinter(ctx).list(views.advisories, pages);
  return 0;
}
