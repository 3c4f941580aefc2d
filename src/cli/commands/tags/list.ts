// pctl tags list --repo REPO (uid, name or uid suffix) [--deprecated] [paging flags]
// The spec has no server-side filter for end-of-life tags, so --deprecated filters here,
// page by page, while the paginator still follows every page; --limit counts the tags
// printed (the filtered ones), not the tags fetched.
//
// Tags are named like versions, and the API sorts names as text (1.16, 1.22, 1.9), so a table
// without --order-by puts them in natural order here (1.9, 1.16, 1.22, latest): every tag is
// read, sorted, and then --limit applies. Other formats stream in the server's order.
import { tags } from '../../../api/resources.js';
import { views } from '../../../output/columns.js';
import type { Tag } from '../../../api/schemas.js';
import { naturallyOrdered } from '../../../output/natural.js';
import { createPrinter, outputMode } from '../../../output/print.js';
import type { Context } from '../../context.js';
import { paginateOptions, printPaged, type PagingFlags } from '../../shared/list.js';
import { repoUid } from '../../shared/resolve.js';
import type { FlagValues } from '../../command.js';
import type { listFlags } from './index.js';

type TagListFlags = FlagValues<typeof listFlags> & PagingFlags;

export async function run(ctx: Context, _args: string[], opts: TagListFlags): Promise<number> {
  const { limit, deprecated, repo, ...paging } = opts;
  const query = paginateOptions({ ...paging, childrenOf: await repoUid(ctx, repo, '--repo') });
  const client = await ctx.client();
  const natural = paging.orderBy === undefined && isTable(outputMode(ctx));
  // Without the filter or the natural order the paginator applies --limit itself (and sizes its requests to it).
  if (!deprecated && !natural && limit !== undefined) query.limit = limit;
  const listing = client.list(tags, query);
  // Filtered or reordered here, the listing has no page token to continue from.
  if (!deprecated && !natural) {
    await printPaged(ctx, views.tags, listing, tags.plural, paging);
    return 0;
  }
  let pages: AsyncIterable<Tag[]> = listing.pages();
  if (deprecated) pages = keepOnly(pages, (t) => t.deprecated === true, natural ? undefined : limit);
  if (natural) pages = naturallyOrdered(pages, (t) => t.name, limit);
  await createPrinter(ctx).list(views.tags, pages);
  return 0;
}

const isTable = (mode: ReturnType<typeof outputMode>) => mode === 'table' || mode === 'wide';

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
