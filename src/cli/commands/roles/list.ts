// pctl roles list [--capabilities] [paging flags]
import { roles } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { FlagValues, PagingFlags } from '../../command.js';
import type { Context } from '../../context.js';
import { runList } from '../../shared/list.js';
import type { listFlags } from './index.js';

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof listFlags> & PagingFlags): Promise<number> {
  // --capabilities shows the column that is otherwise only in -o wide.
  const view = opts.capabilities
    ? { ...views.roles, columns: views.roles.columns.map((c) => (c.header === 'CAPABILITIES' ? { ...c, wide: false } : c)) }
    : views.roles;
  return runList(ctx, roles, opts, view);
}
