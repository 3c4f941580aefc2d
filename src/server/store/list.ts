// The one list engine: every list route of the server goes through ListEngine.list().
// Filters and ordering become SQL over the resources table, read through an index the
// planner (list-plan.ts) picks; pages are keyset cursors (`(sort value, uid) > last seen`),
// never OFFSET scans, so page 2,000 costs what page 1 costs; totalCount comes from the counts
// the writes keep (counts.ts) or, under a filter, an indexed count, and pages and counts are
// cached until a write of their kind in their scope (a write elsewhere leaves them). A caller's scope (the subtrees it may see) is part of the indexed query,
// one uid range per subtree, so a list costs what the caller can see, not the table.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalidField } from '../../api/errors.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PAGE_TOKEN_TTL_MS } from '../../api/resources.js';
import type { Random } from '../base/random.js';
import type { Kind, Record_, Store } from './store.js';
import {
  chooseIndex, compareText, conditions, countedScope, drivingIndex, type FilterColumns, type IndexName, type ListScope, orderBy, type ParsedQuery, rangeAfterCursor, type Segment, segmentsOf, SORT_COLUMNS, sortValue, versionScope,
} from './list-plan.js';
import type { ListQuery } from './list-query.js';
import { ALL } from './counts.js';

export { compareText, within, type FilterColumns, type ListScope } from './list-plan.js';
export type { ListQuery } from './list-query.js';

export interface ListOptions {
  kind: Kind;
  /** The columns the query's declared filters match (ListQuery.filters, by declared name). */
  filterColumns?: FilterColumns;
  /** Access scoping; without it every row of the kind is listed. */
  scope?: ListScope;
}

export interface ListPage {
  items: Record_[];
  nextPageToken: string;
  totalCount: number;
  skipped: number;
}

interface TokenPayload { q: string; k: [string, string]; t: number }

/** A page as read (its uids and one more) and its records; `token`, its next-page token as last signed. */
interface Page { version: string; uids: string[]; items: Record_[]; token?: { t: number; value: string } }

export interface ListEngineOptions {
  /**
   * Count the index entries and rows the list statements visit (rowsRead): a test's or a
   * benchmark's measure of what a list costs. Each visited row calls into JavaScript, so serve
   * counts only when asked (ServeOptions.countListRows).
   */
  countRowsRead?: boolean;
}

/** The filter columns of a list that has none. */
const NO_FILTERS: FilterColumns = {};

/** The SQL function every row a counted list statement visits calls, before any other test of it. */
const ROW_READ = 'pctl_row_read';

export class ListEngine {
  private countCache = new Map<string, { version: string; counts: number[] }>();
  private key: { hex: string; bytes: Buffer } | undefined;
  private visited: number | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly random: Random,
    opts: ListEngineOptions = {},
  ) {
    if (opts.countRowsRead) {
      this.visited = 0;
      store.db.function(ROW_READ, { deterministic: false }, () => {
        this.visited = (this.visited ?? 0) + 1;
        return 1;
      });
    }
  }

  /**
   * The index entries and rows every list so far has visited (counts of filtered matches,
   * pages), including those a filter then rejected; undefined unless counting.
   */
  get rowsRead(): number | undefined {
    return this.visited;
  }

  /**
   * A WHERE clause of terms. When counting, its first term is ROW_READ(): SQLite tests the
   * terms an index does not answer for each entry it visits, in the order written, so every
   * visited entry is counted once, whatever the later terms decide.
   */
  private whereSql(terms: string[]): string {
    return (this.visited === undefined ? terms : [`${ROW_READ}()`, ...terms]).join(' AND ');
  }

  /**
   * Makes the key page tokens are signed with, once per data dir (or shared database, so that
   * a token one replica signs another verifies). A write: call it at start, before serving.
   */
  async ensureTokenKey(): Promise<void> {
    if (this.store.getMeta('page_token_key')) return;
    const key = createHash('sha256').update(this.random.bytes(32)).digest('hex');
    await this.store.write(() => this.store.setMeta('page_token_key', key));
  }

  private get tokenKey(): Buffer {
    const hex = this.store.getMeta('page_token_key');
    if (!hex) throw new Error('no page-token key: ListEngine.ensureTokenKey() was not called');
    if (this.key?.hex !== hex) this.key = { hex, bytes: Buffer.from(hex, 'hex') };
    return this.key.bytes;
  }

  /**
   * A page of records: shared with the store's cache, so read-only (see Store.sharedRecordsOf).
   * The same page served again is the same `items` array, so what is derived from it can be
   * cached by it (WireJson).
   */
  list(query: ListQuery, opts: ListOptions): ListPage {
    const q = this.parse(query, opts);
    const counts = this.segmentCounts(q);
    const totalCount = counts.reduce((a, b) => a + b, 0);
    const page = this.pageOf(q, counts, totalCount);
    const { uids, items } = page;
    let nextPageToken = '';
    if (uids.length > q.pageSize) {
      // The token names the page's last item and the time: a page served again within the
      // same millisecond gets the token it got (signing is a JSON, a base64 and an HMAC).
      const t = this.clock();
      if (page.token?.t !== t) {
        const last = items[items.length - 1]!;
        page.token = { t, value: this.signToken({ q: q.fingerprint, k: [sortValue(last, q.sortField), last.uid], t }) };
      }
      nextPageToken = page.token.value;
    }
    return { items, nextPageToken, totalCount, skipped: q.skip };
  }

  // Each page as last served: while no row of the kind is written, the same query (the same
  // fingerprint, size, skip and cursor) reads the same uids, as it counts the same matches
  // (segmentCounts), so neither the index nor the records are read again.
  private readonly lastPages = new Map<string, Page>();

  /** The uids of the page and one more (whether a next page exists), and the page's records. */
  private pageOf(q: ParsedQuery, counts: number[], totalCount: number): Page {
    // Inside a write the kind's version does not yet tell its uncommitted rows.
    const cached = !this.store.db.inTransaction;
    const key = `${q.fingerprint} ${q.pageSize} ${q.skip} ${q.cursor?.join('\n') ?? ''}`;
    const version = this.versionOf(q);
    const last = cached ? this.lastPages.get(key) : undefined;
    if (last && last.version === version) return last;
    const wanted = q.pageSize + 1; // one more than a page tells whether a next page exists
    let uids: string[] = [];
    // A skip past the end reads nothing: it costs no more than the count already made.
    if (q.skip < totalCount) {
      const live = q.segments.map((seg, i) => ({ seg, matches: counts[i]! })).filter((s) => s.matches > 0);
      // A page nearer the end than the start is read from the end (the count is exact), so a
      // deep skip passes at most min(skip, totalCount - skip) index entries.
      if (q.skip > 0 && !q.cursor && totalCount - q.skip < q.skip) {
        const offset = Math.max(0, totalCount - q.skip - wanted);
        uids = this.read({ ...q, desc: !q.desc, skip: offset }, live, totalCount - q.skip - offset).reverse();
      } else {
        uids = this.read(q, live, wanted);
      }
    }
    const page: Page = { version, uids, items: this.store.sharedRecordsOf(uids.slice(0, q.pageSize)) };
    if (cached) {
      if (this.lastPages.size >= 1000) this.lastPages.clear();
      this.lastPages.set(key, page);
    }
    return page;
  }

  /** The uids of `limit` matches after q.skip, in q's order: one segment straight from its index, several merged (index entries only). */
  private read(q: ParsedQuery, live: { seg: Segment; matches: number }[], limit: number): string[] {
    // LIMIT is written into the SQL, not bound: SQLite plans with a bound LIMIT's value and so
    // prepares the statement again every time it is bound (~4 µs a page). Both are safe integers.
    if (live.length === 1) {
      const keys = this.keySql(q, live[0]!.seg, live[0]!.matches);
      return this.store.prepare(`${keys.sql} LIMIT ${limit} OFFSET ?`).pluck().all(...keys.params, q.skip) as string[];
    }
    // Several: each segment yields its first skip + limit keys in order, and the keys are merged.
    const keys: { k: string; uid: string }[] = [];
    for (const { seg, matches } of live) {
      const one = this.keySql(q, seg, matches, `${SORT_COLUMNS[q.sortField]} AS k, `);
      // One by one, not spread: a deep skip reads more keys than a call takes arguments.
      for (const key of this.store.prepare(`${one.sql} LIMIT ${q.skip + limit}`).all(...one.params) as { k: string; uid: string }[]) keys.push(key);
    }
    const sign = q.desc ? -1 : 1;
    keys.sort((a, b) => sign * (compareText(a.k, b.k) || compareText(a.uid, b.uid)));
    return keys.slice(q.skip, q.skip + limit).map((x) => x.uid);
  }

  /** The uids of one segment's matches after the cursor, in the query's order, through the index chosen for it. */
  private keySql(q: ParsedQuery, seg: Segment, matches: number, extraColumns = ''): { sql: string; params: unknown[] } {
    const narrowed = rangeAfterCursor(q, seg);
    const { where, params } = conditions(q, narrowed ?? seg);
    if (q.cursor && !narrowed) {
      const op = q.desc ? '<' : '>';
      if (q.sortField === 'uid') {
        where.push(`uid ${op} ?`);
        params.push(q.cursor[1]);
      } else {
        where.push(`(${SORT_COLUMNS[q.sortField]}, uid) ${op} (?, ?)`);
        params.push(q.cursor[0], q.cursor[1]);
      }
    }
    const index = chooseIndex(q, seg, matches, this.store.countIn(q.kind, ALL));
    const hint = index ? `INDEXED BY ${index}` : '';
    return { sql: `SELECT ${extraColumns}uid FROM resources ${hint} WHERE ${this.whereSql(where)} ORDER BY ${orderBy(q)}`, params };
  }

  /**
   * The exact number of each segment's matches: from the counts the writes keep (counts.ts)
   * when no filter narrows it, else through the segment's own index. Cached per query (the
   * fingerprint names the segments and filters) until a write in one of its scopes.
   */
  private segmentCounts(q: ParsedQuery): number[] {
    const count = () => q.segments.map((seg) => {
      const counted = countedScope(q, seg);
      if (counted) {
        const self = counted.self !== undefined && this.store.get(counted.self, q.kind) ? 1 : 0;
        return this.store.countIn(q.kind, counted.scope) + self;
      }
      const { where, params } = conditions(q, seg);
      const index = drivingIndex(q, seg)?.index ?? (seg.type === 'uid' ? undefined : 'resources_kind_uid');
      return this.countNow(where, params, index);
    });
    // Inside a write, the versions do not yet tell its uncommitted rows: counted, not cached.
    if (this.store.db.inTransaction) return count();
    const version = this.versionOf(q);
    const cached = this.countCache.get(q.fingerprint);
    if (cached && cached.version === version) return cached.counts;
    const counts = count();
    if (this.countCache.size > 1000) this.countCache.clear();
    this.countCache.set(q.fingerprint, { version, counts });
    return counts;
  }

  /** What a query's page and count are cached against: the writes of its kind in its scopes. */
  private versionOf(q: ParsedQuery): string {
    return this.store.scopeVersion(q.kind, q.segments.map((seg) => versionScope(q, seg)));
  }

  private countNow(where: string[], params: unknown[], index?: IndexName): number {
    const sql = `SELECT count(*) AS n FROM resources ${index ? `INDEXED BY ${index}` : ''} WHERE ${this.whereSql(where)}`;
    return (this.store.prepare(sql).get(...params) as { n: number }).n;
  }

  // The same list asked again (a poller, a page reloaded) plans to the same query: planned
  // once per filter columns and query, its page token read every time (a token expires).
  private readonly parsed = new WeakMap<FilterColumns, Map<string, ParsedQuery>>();
  // The surfaces hand a list asked again the same ListQuery object (their parser caches it):
  // its plan is found by identity, without spelling its key.
  private readonly planOfQuery = new WeakMap<ListQuery, { kind: Kind; scope: string; filterColumns: FilterColumns; q: ParsedQuery }>();

  private parse(query: ListQuery, opts: ListOptions): ParsedQuery {
    const filterColumns = opts.filterColumns ?? NO_FILTERS;
    const scope = opts.scope?.key ?? '';
    const known = this.planOfQuery.get(query);
    const q = known && known.kind === opts.kind && known.scope === scope && known.filterColumns === filterColumns
      ? known.q
      : this.planned(query, opts, filterColumns);
    if (!known || known.q !== q) this.planOfQuery.set(query, { kind: opts.kind, scope, filterColumns, q });
    return query.pageToken ? { ...q, cursor: this.readToken(query.pageToken, q.fingerprint) } : q;
  }

  private planned(query: ListQuery, opts: ListOptions, filterColumns: FilterColumns): ParsedQuery {
    const key = JSON.stringify([
      opts.kind, opts.scope?.key ?? '', query.pageSize ?? 0, query.skip ?? 0, query.order?.field ?? 'uid', query.order?.desc ?? false,
      query.descendantsOf ?? null, query.childrenOf ?? null, query.name ?? null, query.nameContains ?? null, query.filters ?? null,
    ]);
    let byKey = this.parsed.get(filterColumns);
    if (!byKey) this.parsed.set(filterColumns, (byKey = new Map<string, ParsedQuery>()));
    let q = byKey.get(key);
    if (!q) {
      q = this.plan(query, { ...opts, filterColumns });
      if (byKey.size >= 1000) byKey.clear();
      byKey.set(key, q);
    }
    return q;
  }

  private plan(query: ListQuery, opts: ListOptions & { filterColumns: FilterColumns }): ParsedQuery {
    const { filterColumns } = opts;
    const sortField = query.order?.field ?? 'uid';
    const desc = query.order?.desc ?? false;
    const { descendantsOf, childrenOf, name, nameContains } = query;
    const inFilters = Object.entries(query.filters ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .filter(([, values]) => values.length)
      .map(([key, values]) => {
        if (!Object.hasOwn(filterColumns, key)) throw new Error(`${key} is not a declared filter of ${opts.kind}`);
        return { column: filterColumns[key]!, values: [...values] };
      });
    const fingerprint = this.fingerprintOf(JSON.stringify([opts.kind, descendantsOf ?? null, childrenOf ?? null, name ?? null, inFilters, sortField, desc, opts.scope?.key ?? '', nameContains ?? null]));
    return {
      kind: opts.kind, pageSize: Math.min(query.pageSize || PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX), skip: query.skip ?? 0, sortField, desc, inFilters, fingerprint,
      segments: segmentsOf(opts.scope, descendantsOf, childrenOf),
      ...(childrenOf !== undefined ? { parent: childrenOf } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(nameContains ? { nameContains } : {}),
    };
  }

  private signToken(payload: TokenPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  // A page asked for again gets the same token within a millisecond (its body holds the time),
  // and a deep page's token comes back on every request: each body is signed once.
  private readonly macs = new Map<string, string>();

  private mac(body: string): string {
    let mac = this.macs.get(body);
    if (mac === undefined) {
      mac = createHmac('sha256', this.tokenKey).update(body).digest('base64url');
      if (this.macs.size >= 1000) this.macs.clear();
      this.macs.set(body, mac);
    }
    return mac;
  }

  // The same query is fingerprinted on every page of it: hashed once.
  private readonly fingerprints = new Map<string, string>();

  private fingerprintOf(query: string): string {
    let fingerprint = this.fingerprints.get(query);
    if (fingerprint === undefined) {
      fingerprint = createHash('sha256').update(query).digest('base64url').slice(0, 22);
      if (this.fingerprints.size >= 1000) this.fingerprints.clear();
      this.fingerprints.set(query, fingerprint);
    }
    return fingerprint;
  }

  /** The cursor a token carries; undefined when it has expired (the query restarts, spec rule 5). */
  private readToken(token: string, fingerprint: string): [string, string] | undefined {
    const payload = this.verifiedTokens.get(token) ?? this.verifyToken(token);
    if (payload.q !== fingerprint) {
      throw invalidField('page_token', 'belongs to a different query (filters and order_by must stay the same across pages)');
    }
    const age = this.clock() - payload.t;
    if (age > PAGE_TOKEN_TTL_MS || age < -PAGE_TOKEN_TTL_MS) return undefined;
    return payload.k;
  }

  // A token that comes back again (a poller's deep page) is checked and decoded once.
  private readonly verifiedTokens = new Map<string, TokenPayload>();

  /** The payload of a token we signed; a code-3 error for anything else. */
  private verifyToken(token: string): TokenPayload {
    const [body, sig, extra] = token.split('.');
    // Compared as bytes: a signature of the right length in characters but not in bytes (é) made timingSafeEqual throw.
    const got = Buffer.from(sig ?? '');
    const expected = Buffer.from(body ? this.mac(body) : '');
    if (!body || !sig || extra !== undefined || got.length !== expected.length || !timingSafeEqual(got, expected)) {
      throw invalidField('page_token', 'is not a valid page token');
    }
    // Signed by us, so normally well formed; but whoever holds the key (it is in the data
    // dir) can sign anything, and a malformed payload is the client's error, not a 500.
    const payload = parseTokenPayload(Buffer.from(body, 'base64url').toString());
    if (!payload) throw invalidField('page_token', 'is not a valid page token');
    if (this.verifiedTokens.size >= 1000) this.verifiedTokens.clear();
    this.verifiedTokens.set(token, payload);
    return payload;
  }
}

function parseTokenPayload(text: string): TokenPayload | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const p = v as Partial<TokenPayload> | null;
  const ok = typeof p === 'object' && p !== null && !Array.isArray(p) && typeof p.q === 'string' && Number.isFinite(p.t)
    && Array.isArray(p.k) && p.k.length === 2 && p.k.every((x) => typeof x === 'string');
  return ok ? (p as TokenPayload) : undefined;
}
