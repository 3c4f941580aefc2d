// pctl identities list [--group UID | --children-of UID] [--descendants-of UID] [paging flags]
import { identities } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Context } from '../../context.js';
import { runList, type PagingFlags, type ScopeFlags } from '../../shared/list.js';

export async function run(ctx: Context, _args: string[], opts: PagingFlags & ScopeFlags): Promise<number> {
  return runList(ctx, identities, views.identities, opts);
}
