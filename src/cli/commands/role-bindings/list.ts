// pctl role-bindings list [--group UID | --children-of UID] [--descendants-of UID] [paging flags]
import { roleBindings } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { runList, type PagingFlags, type ScopeFlags } from '../../shared/list.js';

export async function run(ctx: Context, _args: string[], opts: PagingFlags & ScopeFlags): Promise<number> {
  return runList(ctx, roleBindings, views.roleBindings, opts);
}
