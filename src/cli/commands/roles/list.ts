// pctl roles list [paging flags]
import { roles } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { runList, type PagingFlags } from '../../shared/list.js';

export async function run(ctx: Context, _args: string[], opts: PagingFlags): Promise<number> {
  return runList(ctx, roles, views.roles, opts);
}
