// The one paginator: every list command (and later `pctl api --paginate`) walks pages
// through it. It follows nextPageToken, applies --skip to the first request only, stops
// at --limit, and records totalCount from the latest page.
import type { ListQuery } from '../api/resources.js';
import { ResponseError } from './errors.js';

export interface Page<T> {
  items: T[];
  nextPageToken?: string | undefined;
  totalCount?: number | undefined;
  skipped?: number | undefined;
}

export interface PaginateOptions extends ListQuery {
  /** Stop after this many items in total. */
  limit?: number | undefined;
  /** Told how far a listing of several pages has got (never for a single page). */
  progress?: PageProgress | undefined;
}

/** A progress display: update() while the next page is being fetched, clear() before items are handed on and at the end. */
export interface PageProgress {
  update(fetched: number, expected: number | undefined): void;
  clear(): void;
}

/** When the user gives no --page-size we ask for the largest page: fewer round trips. */
export const CLIENT_DEFAULT_PAGE_SIZE = 200;

export class Paginator<T> implements AsyncIterable<T> {
  /** Total matches across all pages, as the server last reported it (undefined before the first page). */
  totalCount: number | undefined;
  /** Pages fetched so far. */
  pagesFetched = 0;
  /**
   * Once the pages are done: the token that continues where --limit stopped the listing
   * (undefined at the end of the matches, or where a page had to be cut short).
   */
  nextPageToken: string | undefined;

  readonly #fetchPage: (query: ListQuery) => Promise<Page<T>>;
  readonly #opts: PaginateOptions;

  constructor(fetchPage: (query: ListQuery) => Promise<Page<T>>, opts: PaginateOptions = {}) {
    this.#fetchPage = fetchPage;
    this.#opts = opts;
  }

  /** Pages as they arrive (never an empty one), trimmed to the limit. */
  async *pages(): AsyncGenerator<T[], void, undefined> {
    const { limit, skip, pageToken, pageSize, progress, ...filters } = this.#opts;
    let remaining = limit ?? Infinity;
    let token = pageToken || undefined;
    let first = true;
    let fetched = 0;
    const seen = new Set<string>();
    try {
      while (remaining > 0) {
        if (!first && progress) progress.update(fetched, this.#expected(limit, skip));
        // Never more than the limit still wants: a page that ends where the limit does has a
        // token that continues right after the last item printed.
        const query: ListQuery = { ...filters, pageSize: Math.min(pageSize ?? CLIENT_DEFAULT_PAGE_SIZE, remaining) };
        if (token) query.pageToken = token;
        if (first && skip) query.skip = skip;
        first = false;
        const page = await this.#fetchPage(query);
        this.pagesFetched++;
        if (page.totalCount !== undefined) this.totalCount = page.totalCount;
        const items = page.items.length > remaining ? page.items.slice(0, remaining) : page.items;
        remaining -= items.length;
        fetched += items.length;
        if (items.length) {
          progress?.clear(); // the consumer may write to the same terminal
          yield items;
        }
        const next = page.nextPageToken || undefined;
        this.nextPageToken = items.length === page.items.length ? next : undefined;
        if (!next) return;
        // A server that hands back a token it already gave would loop forever.
        if (seen.has(next)) throw new ResponseError('the server returned the same page token twice; stopping');
        seen.add(next);
        token = next;
      }
    } finally {
      progress?.clear();
    }
  }

  /** How many items this listing will yield, as far as the server's totalCount tells. */
  #expected(limit: number | undefined, skip: number | undefined): number | undefined {
    if (this.totalCount === undefined) return limit;
    return Math.min(limit ?? Infinity, Math.max(0, this.totalCount - (skip ?? 0)));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page;
  }

  /** Collects every item (bounded by the limit). */
  async all(): Promise<T[]> {
    const out: T[] = [];
    for await (const page of this.pages()) out.push(...page);
    return out;
  }
}
