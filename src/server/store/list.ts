// The one list engine: every list route of the server goes through ListEngine.list().
// Filters and ordering become SQL over the resources table, read through an index the
// engine picks; pages are keyset cursors (`(sort value, uid) > last seen`), never OFFSET
// scans, so page 2,000 costs what page 1 costs; totalCount is cached per filter set until
// the next write. A caller's scope (the subtrees it may see) is part of the indexed query,
// one uid range per subtree, so a list costs what the caller can see, not the table.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalidField, ApiError, Code } from '../../api/errors.js';
import { ORDER_FIELDS, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PAGE_TOKEN_TTL_MS } from '../../api/resources.js';
import { repeatedParam } from '../params.js';
import type { Random } from '../random.js';
import type { Kind, Record_, Store } from './store.js';

/** The wire names of the shared list parameters, with the camelCase spellings accepted too. */
const PARAM_ALIASES: Record<string, string> = {
  page_size: 'page_size', pageSize: 'page_size',
  page_token: 'page_token', pageToken: 'page_token',
  order_by: 'order_by', orderBy: 'order_by',
  skip: 'skip',
  'uidp.descendants_of': 'uidp.descendants_of', 'uidp.descendantsOf': 'uidp.descendants_of',
  'uidp.children_of': 'uidp.children_of', 'uidp.childrenOf': 'uidp.children_of',
  name: 'name',
};

const SORT_COLUMNS = { uid: 'uid', name: 'name', createTime: 'create_time', updateTime: 'update_time' } as const;

/**
 * The declared filter a query parameter names, in either spelling (`artifactNames` or
 * `artifact_names`, `key_id` or `keyId`), as the shared parameters and gRPC transcoding accept.
 */
function filterParam(filterColumns: FilterColumns, rawKey: string): string | undefined {
  if (Object.hasOwn(filterColumns, rawKey)) return rawKey;
  const other = otherSpelling(rawKey);
  return other !== rawKey && Object.hasOwn(filterColumns, other) ? other : undefined;
}

// The same few parameter names come with every request: each one's other spelling is made once.
const otherSpellings = new Map<string, string>();

/** `artifact_names` → `artifactNames`, `keyId` → `key_id`. */
function otherSpelling(key: string): string {
  let other = otherSpellings.get(key);
  if (other === undefined) {
    other = key.includes('_')
      ? key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
      : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (otherSpellings.size >= 1000) otherSpellings.clear();
    otherSpellings.set(key, other);
  }
  return other;
}

/** Whether uid is the group itself or lies below it (a grant on a group covers its subtree). */
export function within(uid: string, groupUid: string): boolean {
  return uid === groupUid || uid.startsWith(`${groupUid}/`);
}

/** A resource-specific filter: query parameter → the column it matches exactly. */
export type FilterColumns = Record<string, 'name' | 'alt_key' | 'parent'>;

/**
 * What the caller may see: every root and everything below it, and (`unparented`) the rows
 * outside the hierarchy (built-in roles, advisories). Roots are sorted and none lies inside
 * another, so their uid ranges never overlap.
 */
export interface ListScope {
  roots: string[];
  unparented: boolean;
  /** Binds page tokens and cached counts to this scope. */
  key: string;
}

export interface ListOptions {
  kind: Kind;
  /** Resource-specific repeatable filters (`artifactNames=a,b&artifactNames=c`). */
  filterColumns?: FilterColumns;
  /** Access scoping; without it every row of the kind is listed. */
  scope?: ListScope;
  /** Only rows whose name contains this, ignoring ASCII case (a search parameter the route reads itself). */
  nameContains?: string;
}

export interface ListPage {
  items: Record_[];
  nextPageToken: string;
  totalCount: number;
  skipped: number;
}

type SortField = keyof typeof SORT_COLUMNS;

/**
 * One indexed slice of the result. A scoped list is the union of its segments (one per
 * visible subtree, intersected with uidp.descendants_of), each read through an index range
 * of its own, so a list costs what the caller can see, never the whole table.
 */
type Segment =
  /**
   * from <= uid < to (from < uid with fromExcluded): a subtree (uids are lower-case hex and '/',
   * so [g, g + '0') is g and everything below it).
   */
  | { type: 'range'; from: string; to: string; fromExcluded?: boolean }
  | { type: 'uid'; uid: string }
  /** Rows outside the hierarchy (parent IS NULL). */
  | { type: 'unparented' }
  | { type: 'all' };

interface ParsedQuery {
  kind: Kind;
  pageSize: number;
  skip: number;
  sortField: SortField;
  desc: boolean;
  /** Restrictions besides the segment: uidp.children_of, name, the resource-specific filters. */
  parent?: string;
  name?: string;
  /** A case-insensitive substring of the name (the artifacts' `query`). */
  nameContains?: string;
  inFilters: { column: 'name' | 'alt_key' | 'parent'; values: string[] }[];
  segments: Segment[];
  /** Identifies the query (filters + order + scope), to bind page tokens and cache counts. */
  fingerprint: string;
  cursor?: [string, string];
}

interface TokenPayload { q: string; k: [string, string]; t: number }

type IndexName = 'resources_kind_uid' | 'resources_kind_name' | 'resources_kind_create' | 'resources_kind_update'
  | 'resources_parent' | 'resources_parent_uid' | 'resources_parent_create' | 'resources_alt';

/** (kind, sort column, uid): a kind's rows in each order. */
const SORT_INDEXES: Record<SortField, IndexName> = {
  uid: 'resources_kind_uid', name: 'resources_kind_name', createTime: 'resources_kind_create', updateTime: 'resources_kind_update',
};

/** (parent, kind, sort column, uid): one parent's children (or the rows without one) in that order; none by updateTime. */
const PARENT_SORT_INDEXES: Partial<Record<SortField, IndexName>> = {
  uid: 'resources_parent_uid', name: 'resources_parent', createTime: 'resources_parent_create',
};

export class ListEngine {
  private countCache = new Map<string, { version: string; counts: number[] }>();
  private key: { hex: string; bytes: Buffer } | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly random: Random,
  ) {}

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

  /** A page of records: shared with the store's cache, so read-only (see Store.sharedRecordsOf). */
  list(query: URLSearchParams, opts: ListOptions): ListPage {
    const q = this.parse(query, opts);
    const counts = this.segmentCounts(q);
    const totalCount = counts.reduce((a, b) => a + b, 0);
    const { uids, items } = this.pageOf(q, counts, totalCount);
    let nextPageToken = '';
    if (uids.length > q.pageSize) {
      const last = items[items.length - 1]!;
      nextPageToken = this.signToken({ q: q.fingerprint, k: [sortValue(last, q.sortField), last.uid], t: this.clock() });
    }
    return { items, nextPageToken, totalCount, skipped: q.skip };
  }

  // Each page as last served: while no row of the kind is written, the same query (the same
  // fingerprint, size, skip and cursor) reads the same uids, as it counts the same matches
  // (segmentCounts), so neither the index nor the records are read again.
  private readonly lastPages = new Map<string, { version: string; uids: string[]; items: Record_[] }>();

  /** The uids of the page and one more (whether a next page exists), and the page's records. */
  private pageOf(q: ParsedQuery, counts: number[], totalCount: number): { uids: string[]; items: Record_[] } {
    // Inside a write the kind's version does not yet tell its uncommitted rows.
    const cached = !this.store.db.inTransaction;
    const key = `${q.fingerprint} ${q.pageSize} ${q.skip} ${q.cursor?.join('\n') ?? ''}`;
    const version = this.store.versionOf([q.kind]);
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
    const page = { version, uids, items: this.store.sharedRecordsOf(uids.slice(0, q.pageSize)) };
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
      keys.push(...(this.store.prepare(`${one.sql} LIMIT ${q.skip + limit}`).all(...one.params) as { k: string; uid: string }[]));
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
    const index = chooseIndex(q, seg, matches, this.countOfKind(q.kind));
    const hint = index ? `INDEXED BY ${index}` : '';
    return { sql: `SELECT ${extraColumns}uid FROM resources ${hint} WHERE ${where.join(' AND ')} ORDER BY ${orderBy(q)}`, params };
  }

  /**
   * The exact number of each segment's matches, read through the segment's own index. Cached
   * per query (the fingerprint names the segments and filters) until a write of the query's
   * kind: an update never moves a row to another kind.
   */
  private segmentCounts(q: ParsedQuery): number[] {
    return this.cachedCounts(q.fingerprint, q.kind, () => q.segments.map((seg) => {
      const { where, params } = conditions(q, seg);
      const index = drivingIndex(q, seg)?.index ?? (seg.type === 'uid' ? undefined : 'resources_kind_uid');
      return this.countNow(where, params, index);
    }));
  }

  private countOfKind(kind: Kind): number {
    return this.cachedCounts(`kind:${kind}`, kind, () => [this.countNow(['kind = ?'], [kind], 'resources_kind_uid')])[0]!;
  }

  private cachedCounts(key: string, kind: Kind, count: () => number[]): number[] {
    const version = this.store.versionOf([kind]);
    const cached = this.countCache.get(key);
    if (cached && cached.version === version) return cached.counts;
    const counts = count();
    if (this.countCache.size > 1000) this.countCache.clear();
    this.countCache.set(key, { version, counts });
    return counts;
  }

  private countNow(where: string[], params: unknown[], index?: IndexName): number {
    const sql = `SELECT count(*) AS n FROM resources ${index ? `INDEXED BY ${index}` : ''} WHERE ${where.join(' AND ')}`;
    return (this.store.prepare(sql).get(...params) as { n: number }).n;
  }

  private parse(query: URLSearchParams, opts: ListOptions): ParsedQuery {
    const filterColumns = opts.filterColumns ?? {};
    const single = new Map<string, string>();
    const multi = new Map<string, string[]>();
    const spelledAs = new Map<string, string>(); // wire name → the spelling given
    for (const [rawKey, value] of query) {
      const filter = filterParam(filterColumns, rawKey);
      if (filter) {
        const values = value.split(',').map((v) => v.trim()).filter(Boolean);
        multi.set(filter, [...(multi.get(filter) ?? []), ...values]);
        continue;
      }
      // hasOwn: `constructor`, `__proto__` and friends are not parameters (they reached SQL as column names).
      const key = Object.hasOwn(PARAM_ALIASES, rawKey) ? PARAM_ALIASES[rawKey] : undefined;
      if (!key) throw invalidField(rawKey, 'is not a known query parameter');
      const earlier = spelledAs.get(key);
      if (earlier !== undefined) throw repeatedParam(key, earlier, rawKey);
      spelledAs.set(key, rawKey);
      single.set(key, value);
    }

    const pageSize = parseNonNegativeInt(single.get('page_size'), 'page_size') || PAGE_SIZE_DEFAULT;
    const skip = parseNonNegativeInt(single.get('skip'), 'skip');
    const { sortField, desc } = parseOrderBy(single.get('order_by'));

    const descendantsOf = single.get('uidp.descendants_of');
    if (descendantsOf === '') throw invalidField('uidp.descendants_of', 'must not be empty');
    const childrenOf = single.get('uidp.children_of');
    if (childrenOf === '') throw invalidField('uidp.children_of', 'must not be empty');
    const name = single.get('name');
    const inFilters = [...multi]
      .sort(([a], [b]) => a.localeCompare(b))
      .filter(([, values]) => values.length)
      .map(([key, values]) => ({ column: filterColumns[key]!, values }));

    const fingerprint = this.fingerprintOf(JSON.stringify([opts.kind, descendantsOf ?? null, childrenOf ?? null, name ?? null, inFilters, sortField, desc, opts.scope?.key ?? '', opts.nameContains ?? null]));
    const parsed: ParsedQuery = {
      kind: opts.kind, pageSize: Math.min(pageSize, PAGE_SIZE_MAX), skip, sortField, desc, inFilters, fingerprint,
      segments: segmentsOf(opts.scope, descendantsOf, childrenOf),
      ...(childrenOf !== undefined ? { parent: childrenOf } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(opts.nameContains ? { nameContains: opts.nameContains } : {}),
    };
    const token = single.get('page_token');
    if (token) parsed.cursor = this.readToken(token, parsed.fingerprint);
    return parsed;
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

/** The uid range of `g`'s descendants: every one starts with "g/", and '0' is the character after '/'. */
function descendantsRange(g: string): [string, string] {
  return [`${g}/`, `${g}0`];
}

/**
 * The segments a query reads: the caller's subtrees, narrowed by uidp.descendants_of and
 * uidp.children_of. Rows outside the hierarchy have no ancestors, so either filter excludes them.
 */
function segmentsOf(scope: ListScope | undefined, descendantsOf: string | undefined, childrenOf: string | undefined): Segment[] {
  const below = descendantsOf === undefined ? undefined : descendantsRange(descendantsOf);
  if (childrenOf !== undefined) {
    // Children of P below D: all of them when P is D or lies below it, none otherwise.
    if (descendantsOf !== undefined && !within(childrenOf, descendantsOf)) return [];
    if (!scope || scope.roots.some((r) => within(childrenOf, r))) return [{ type: 'all' }];
    // P is not visible: its only visible children are the roots directly below it.
    return scope.roots.filter((r) => parentOf(r) === childrenOf).map((uid) => ({ type: 'uid', uid }));
  }
  if (!scope) return [below ? { type: 'range', from: below[0], to: below[1] } : { type: 'all' }];
  const segments: Segment[] = [];
  for (const root of scope.roots) {
    let from = root;
    let to = `${root}0`;
    if (below) {
      if (compareText(below[0], from) > 0) from = below[0];
      if (compareText(below[1], to) < 0) to = below[1];
    }
    if (compareText(from, to) < 0) segments.push({ type: 'range', from, to });
  }
  if (scope.unparented && !below) segments.push({ type: 'unparented' });
  return segments;
}

/**
 * In uid order, the part of a range segment after the cursor, as one range: given the cursor
 * as a second bound beside the range's own, SQLite seeks to the range's start and passes every
 * entry before the cursor (a deep page by uid passed 90k of them). Undefined for other orders.
 */
function rangeAfterCursor(q: ParsedQuery, seg: Segment): Segment | undefined {
  if (!q.cursor || q.sortField !== 'uid' || seg.type !== 'range') return undefined;
  const cursor = q.cursor[1];
  if (q.desc) return compareText(cursor, seg.to) < 0 ? { type: 'range', from: seg.from, to: cursor } : seg;
  return compareText(cursor, seg.from) >= 0 ? { type: 'range', from: cursor, to: seg.to, fromExcluded: true } : seg;
}

function orderBy(q: ParsedQuery): string {
  const dir = q.desc ? 'DESC' : 'ASC';
  return q.sortField === 'uid' ? `uid ${dir}` : `${SORT_COLUMNS[q.sortField]} ${dir}, uid ${dir}`;
}

function parentOf(uid: string): string | undefined {
  const i = uid.lastIndexOf('/');
  return i === -1 ? undefined : uid.slice(0, i);
}

/** The WHERE terms of one segment of a query (without the cursor). */
function conditions(q: ParsedQuery, seg: Segment): { where: string[]; params: unknown[] } {
  const where = ['kind = ?'];
  const params: unknown[] = [q.kind];
  switch (seg.type) {
    case 'range': where.push(`uid ${seg.fromExcluded ? '>' : '>='} ? AND uid < ?`); params.push(seg.from, seg.to); break;
    case 'uid': where.push('uid = ?'); params.push(seg.uid); break;
    case 'unparented': where.push('parent IS NULL'); break;
    case 'all': break;
  }
  if (q.parent !== undefined) {
    where.push('parent = ?');
    params.push(q.parent);
  }
  if (q.name !== undefined) {
    where.push('name = ?');
    params.push(q.name);
  }
  if (q.nameContains !== undefined) {
    where.push("name LIKE ? ESCAPE '!'");
    params.push(`%${q.nameContains.replace(/[!%_]/g, '!$&')}%`);
  }
  for (const { column, values } of q.inFilters) {
    where.push(`${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  }
  return { where, params };
}

/**
 * The index that reads just a segment's matches, and whether it yields them in the requested
 * order. SQLite has no statistics here and would often walk a whole sort index instead, so
 * the engine names the index itself. Undefined: the primary key (one uid), or nothing narrows.
 */
function drivingIndex(q: ParsedQuery, seg: Segment): { index: IndexName; ordered: boolean } | undefined {
  const sort = q.sortField;
  if (seg.type === 'uid') return undefined;
  const alt = q.inFilters.some((f) => f.column === 'alt_key');
  if (alt) return { index: 'resources_alt', ordered: false };
  if (q.parent !== undefined || (seg.type === 'unparented' && q.name !== undefined)) {
    // (parent, kind, sort column, uid): the children in the requested order.
    const inOrder = PARENT_SORT_INDEXES[sort];
    if (inOrder && q.parent !== undefined && q.name === undefined && !q.inFilters.length) return { index: inOrder, ordered: true };
    // (parent, kind, name, uid): with a name (or names), only those children; with one, in uid order.
    return { index: 'resources_parent', ordered: sort === 'name' || (q.name !== undefined && sort === 'uid') };
  }
  // (kind, name, uid): the rows of one name, in uid order (and by name, trivially); a range of uids too.
  if (q.name !== undefined) return { index: 'resources_kind_name', ordered: sort === 'name' || sort === 'uid' };
  if (q.inFilters.some((f) => f.column === 'name')) return { index: 'resources_kind_name', ordered: false };
  if (q.inFilters.some((f) => f.column === 'parent')) return { index: 'resources_parent', ordered: false };
  if (seg.type === 'range') return { index: 'resources_kind_uid', ordered: sort === 'uid' };
  if (seg.type === 'unparented') return { index: PARENT_SORT_INDEXES[sort] ?? 'resources_parent', ordered: sort in PARENT_SORT_INDEXES };
  return undefined;
}

/**
 * A segment read through its own index costs ~ its m matches, each a row read and sorted
 * (measured: ~10 x a step along an index) unless the index is already in order; walking the
 * sort index instead passes entries outside the segment until a page is full, ~ (page + skip)
 * x N / m steps for N rows of the kind. The exact counts (cached) pick the cheaper, so a small
 * team's list and the whole organization's both page fast.
 */
/** The cost of reading and sorting one row, in steps along an index (measured with 10k-100k groups). */
const ROW_READ_AND_SORT = 10;

function chooseIndex(q: ParsedQuery, seg: Segment, matches: number, ofKind: number): IndexName | undefined {
  if (seg.type === 'uid') return undefined;
  const own = drivingIndex(q, seg);
  const walk = SORT_INDEXES[q.sortField];
  if (!own) return walk;
  if (own.ordered || own.index === walk) return own.index;
  const ownCost = ROW_READ_AND_SORT * matches;
  const walkCost = ((q.pageSize + 1 + q.skip) * ofKind) / Math.max(matches, 1);
  return ownCost <= walkCost ? own.index : walk;
}

/**
 * Text in SQLite's order (BINARY: UTF-8 bytes, i.e. code points). JS's < compares UTF-16
 * units, which differs only where a surrogate pair (U+10000 and up) meets U+E000..U+FFFF.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

function sortValue(rec: Record_, field: SortField): string {
  switch (field) {
    case 'uid': return rec.uid;
    case 'name': return rec.name;
    case 'createTime': return rec.createTime;
    case 'updateTime': return rec.updateTime;
  }
}

function parseNonNegativeInt(raw: string | undefined, field: string): number {
  if (raw === undefined || raw === '') return 0;
  if (!/^-?\d+$/.test(raw.trim())) throw invalidField(field, 'must be an integer');
  const n = Number(raw);
  if (n < 0) throw invalidField(field, 'must not be negative');
  if (!Number.isSafeInteger(n)) throw invalidField(field, 'is too large');
  return n;
}

function parseOrderBy(raw: string | undefined): { sortField: SortField; desc: boolean } {
  if (raw === undefined || raw.trim() === '') return { sortField: 'uid', desc: false };
  const parts = raw.trim().split(/\s+/);
  const field = Object.hasOwn(ORDER_FIELDS, parts[0]!) ? ORDER_FIELDS[parts[0]!] : undefined;
  const direction = (parts[1] ?? 'asc').toLowerCase();
  if (!field || parts.length > 2 || (direction !== 'asc' && direction !== 'desc')) {
    const known = 'uid, name, createTime (created_at), updateTime (updated_at)';
    throw new ApiError(Code.INVALID_ARGUMENT, `Invalid argument: order_by: must be one of ${known}, optionally followed by asc or desc`, {
      reason: 'INVALID_ARGUMENT',
      fieldViolations: [{ field: 'order_by', description: `must be one of ${known}, optionally followed by asc or desc` }],
    });
  }
  return { sortField: field, desc: direction === 'desc' };
}
