// pctl libraries list [--ecosystem java|python]… [--query TEXT] [paging flags]
import { artifacts } from '../../../api/resources.js';
import type { FlagValues, PagingFlags } from '../../command.js';
import type { Context } from '../../context.js';
import { paginateOptions, printPaged } from '../../shared/list.js';
import { ecosystems } from './ecosystems.js';
import type { listFlags } from './index.js';

export async function run(ctx: Context, _args: string[], opts: FlagValues<typeof listFlags> & PagingFlags): Promise<number> {
  const { ecosystem, query, ...paging } = opts;
  const filters: Record<string, string[]> = { ecosystems: ecosystems(ecosystem) };
  if (query) filters.query = [query];
  const client = await ctx.client();
  await printPaged(ctx, artifacts.view, client.list(artifacts, { ...paginateOptions(paging), filters }), artifacts.plural, paging);
  return 0;
}
