// The one paginator, against a fake page source: tokens, limit, skip, page token, totalCount.
import test from 'ava';
import type { ListQuery } from '../src/api/resources.js';
import { CLIENT_DEFAULT_PAGE_SIZE, Paginator, type Page } from '../src/client/paginate.js';

/** A fake list endpoint over `n` numbered items; records every query it receives. */
function source(n: number) {
  const items = Array.from({ length: n }, (_, i) => i);
  const queries: ListQuery[] = [];
  const fetchPage = async (q: ListQuery): Promise<Page<number>> => {
    queries.push(q);
    const start = (q.pageToken ? Number(q.pageToken.slice(3)) : 0) + (q.skip ?? 0);
    const size = q.pageSize ?? 50;
    const page = items.slice(start, start + size);
    const next = start + size < n ? `tok${start + size}` : undefined;
    return { items: page, nextPageToken: next, totalCount: n, skipped: q.skip ?? 0 };
  };
  return { fetchPage, queries };
}

test('follows nextPageToken until it is absent, and exposes totalCount', async (t) => {
  const { fetchPage, queries } = source(120);
  const p = new Paginator(fetchPage, { pageSize: 50 });
  t.is(p.totalCount, undefined);
  const all = await p.all();
  t.deepEqual(all, Array.from({ length: 120 }, (_, i) => i));
  t.is(p.totalCount, 120);
  t.is(p.pagesFetched, 3);
  t.deepEqual(queries.map((q) => q.pageToken), [undefined, 'tok50', 'tok100']);
});

test('iterates item by item and page by page', async (t) => {
  const { fetchPage } = source(7);
  const items: number[] = [];
  for await (const item of new Paginator(fetchPage, { pageSize: 3 })) items.push(item);
  t.deepEqual(items, [0, 1, 2, 3, 4, 5, 6]);
  const sizes: number[] = [];
  for await (const page of new Paginator(fetchPage, { pageSize: 3 }).pages()) sizes.push(page.length);
  t.deepEqual(sizes, [3, 3, 1]);
});

test('--limit stops early and asks for no more than it needs', async (t) => {
  const { fetchPage, queries } = source(1000);
  t.deepEqual(await new Paginator(fetchPage, { limit: 5 }).all(), [0, 1, 2, 3, 4]);
  t.is(queries.length, 1);
  t.is(queries[0]!.pageSize, 5, 'without --page-size the page is sized to the limit');

  const q2 = source(1000);
  const got = await new Paginator(q2.fetchPage, { limit: 120, pageSize: 50 }).all();
  t.is(got.length, 120);
  t.is(q2.queries.length, 3);
  t.deepEqual(q2.queries.map((q) => q.pageSize), [50, 50, 20], 'an explicit --page-size is kept, the last page sized to what the limit still wants');
});

test('where --limit stops the listing, nextPageToken continues right after the last item; at the end it is undefined', async (t) => {
  const first = new Paginator(source(25).fetchPage, { limit: 10, pageSize: 4 });
  t.deepEqual(await first.all(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  t.is(first.nextPageToken, 'tok10');
  const rest = new Paginator(source(25).fetchPage, { pageToken: first.nextPageToken, limit: 10 });
  t.deepEqual(await rest.all(), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  const last = new Paginator(source(25).fetchPage, { pageToken: rest.nextPageToken, limit: 10 });
  t.deepEqual(await last.all(), [20, 21, 22, 23, 24]);
  t.is(last.nextPageToken, undefined, 'the end: nothing to continue');
  // A server that sends more than asked: the page is cut, and its token would skip items.
  const generous = new Paginator(async () => ({ items: [1, 2, 3], nextPageToken: 'after3' }), { limit: 2 });
  t.deepEqual(await generous.all(), [1, 2]);
  t.is(generous.nextPageToken, undefined);
});

test('without --page-size or --limit the client asks for the largest page', async (t) => {
  const { fetchPage, queries } = source(10);
  await new Paginator(fetchPage).all();
  t.is(queries[0]!.pageSize, CLIENT_DEFAULT_PAGE_SIZE);
});

test('--skip applies to the first request only; --page-token starts there', async (t) => {
  const { fetchPage, queries } = source(20);
  const got = await new Paginator(fetchPage, { skip: 5, pageSize: 10 }).all();
  t.deepEqual(got, Array.from({ length: 15 }, (_, i) => i + 5));
  t.is(queries[0]!.skip, 5);
  t.true(queries.slice(1).every((q) => q.skip === undefined));

  const resumed = source(20);
  t.deepEqual(await new Paginator(resumed.fetchPage, { pageToken: 'tok17', pageSize: 10 }).all(), [17, 18, 19]);
  t.is(resumed.queries[0]!.pageToken, 'tok17');
});

test('filters and order pass through on every request', async (t) => {
  const { fetchPage, queries } = source(30);
  await new Paginator(fetchPage, { pageSize: 10, orderBy: 'name desc', descendantsOf: 'abc', name: 'x' }).all();
  t.is(queries.length, 3);
  t.true(queries.every((q) => q.orderBy === 'name desc' && q.descendantsOf === 'abc' && q.name === 'x'));
});

test('an empty listing yields nothing; a repeated token is an error, not a loop', async (t) => {
  const { fetchPage } = source(0);
  t.deepEqual(await new Paginator(fetchPage).all(), []);

  let calls = 0;
  const stuck = async (): Promise<Page<number>> => {
    calls++;
    return { items: [1], nextPageToken: 'same' };
  };
  await t.throwsAsync(new Paginator(stuck).all(), { message: /same page token/ });
  t.true(calls <= 3);
});
