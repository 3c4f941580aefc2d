// pctl repos list [--descendants-of UID] [--children-of UID] [--name NAME] [paging flags]
import { repos } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { runList, type PagingFlags, type ScopeFlags } from '../../shared/list.js';

export async function run(ctx: Context, _args: string[], opts: PagingFlags & ScopeFlags): Promise<number> {
  return runList(ctx, repos, views.repos, opts);
}
