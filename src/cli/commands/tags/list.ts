// pctl tags list --repo REPO (uid, name or uid suffix) [--deprecated] [paging flags]
// The spec has no server-side filter for end-of-life tags, so --deprecated filters here,
// page by page, while the paginator still follows every page; --limit counts the tags
// printed (the filtered ones), not the tags fetched.
import { tags } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import { createPrinter } from '../../../output/print.js';
import type { Context } from '../../context.js';
import { paginateOptions, type PagingFlags } from '../../shared/list.js';
import { repoUid } from '../../shared/resolve.js';
import type { FlagValues } from '../../command.js';
import type { listFlags } from './index.js';

type TagListFlags = FlagValues<typeof listFlags> & PagingFlags;

export async function run(ctx: Context, _args: string[], opts: TagListFlags): Promise<number> {
  const { limit, deprecated, repo, ...paging } = opts;
  const query = paginateOptions({ ...paging, childrenOf: await repoUid(ctx, repo, '--repo') });
  const client = await ctx.client();
  // Without the filter the paginator applies --limit itself (and sizes its requests to it).
  if (!deprecated && limit !== undefined) query.limit = limit;
  const pages = client.list(tags, query).pages();
  await createPrinter(ctx).list(views.tags, deprecated ? keepOnly(pages, (t) => t.deprecated === true, limit) : pages);
  return 0;
}

/** The pages, each cut down to the items kept, empty pages dropped, at most `limit` items in all. */
export async function* keepOnly<T>(
  pages: AsyncIterable<T[]>, keep: (item: T) => boolean, limit = Infinity,
): AsyncGenerator<T[], void, undefined> {
  let remaining = limit;
  if (remaining <= 0) return;
  for await (const page of pages) {
    const kept = page.filter(keep).slice(0, remaining);
    remaining -= kept.length;
    if (kept.length) yield kept;
    if (remaining <= 0) return; // ends the paginator too: no further page is fetched
  }
}
