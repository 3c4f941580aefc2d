// The one list engine: every list route of the server goes through listResources().
// Filters and ordering become one SQL query over the resources table; pages are keyset
// cursors (`(sort value, uid) > last seen`), never OFFSET scans, so page 2,000 costs
// what page 1 costs; totalCount is cached per filter set until the next write.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalidField, ApiError, Code } from '../api/errors.js';
import { ORDER_FIELDS, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PAGE_TOKEN_TTL_MS } from '../api/resources.js';
import { repeatedParam } from './params.js';
import { rowToRecord, type Kind, type Record_, type Store } from './store/store.js';

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

/** A resource-specific filter: query parameter → the column it matches exactly. */
export type FilterColumns = Record<string, 'name' | 'alt_key' | 'parent'>;

export interface ListOptions {
  kind: Kind;
  /** Resource-specific repeatable filters (`artifactNames=a,b&artifactNames=c`). */
  filterColumns?: FilterColumns;
  /** Extra SQL restriction (access scoping), and a key that binds page tokens to it. */
  scope?: { sql: string; params: unknown[]; key: string };
}

export interface ListPage {
  items: Record_[];
  nextPageToken: string;
  totalCount: number;
  skipped: number;
}

interface ParsedQuery {
  pageSize: number;
  skip: number;
  sortField: keyof typeof SORT_COLUMNS;
  desc: boolean;
  where: string[];
  params: unknown[];
  /** Identifies the query (filters + order + scope), to bind page tokens and cache counts. */
  fingerprint: string;
  kind: Kind;
  /** Whether the query is scoped to a subtree (uidp.descendants_of), which decides the index. */
  subtree: boolean;
  cursor?: [string, string];
}

interface TokenPayload { q: string; k: [string, string]; t: number }

export class ListEngine {
  private countCache = new Map<string, { version: number; count: number }>();
  private readonly tokenKey: Buffer;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
  ) {
    let key = store.getMeta('page_token_key');
    if (!key) {
      key = createHash('sha256').update(crypto.getRandomValues(new Uint8Array(32))).digest('hex');
      store.setMeta('page_token_key', key);
    }
    this.tokenKey = Buffer.from(key, 'hex');
  }

  list(query: URLSearchParams, opts: ListOptions): ListPage {
    const q = this.parse(query, opts);
    const order = `${SORT_COLUMNS[q.sortField]} ${q.desc ? 'DESC' : 'ASC'}`;
    const orderBy = q.sortField === 'uid' ? order : `${order}, uid ${q.desc ? 'DESC' : 'ASC'}`;
    const where = [...q.where];
    const params = [...q.params];
    if (q.cursor) {
      const op = q.desc ? '<' : '>';
      if (q.sortField === 'uid') {
        where.push(`uid ${op} ?`);
        params.push(q.cursor[1]);
      } else {
        where.push(`(${SORT_COLUMNS[q.sortField]}, uid) ${op} (?, ?)`);
        params.push(q.cursor[0], q.cursor[1]);
      }
    }
    const totalCount = this.count(q);
    const hint = q.subtree && q.sortField !== 'uid' ? indexHint(q, totalCount, this.countOfKind(q.kind)) : '';
    const sql = `SELECT * FROM resources ${hint} WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT ? OFFSET ?`;
    const rows = this.store.prepare(sql).all(...params, q.pageSize + 1, q.skip) as Parameters<typeof rowToRecord>[0][];
    const items = rows.slice(0, q.pageSize).map(rowToRecord);
    let nextPageToken = '';
    if (rows.length > q.pageSize) {
      const last = items[items.length - 1]!;
      nextPageToken = this.signToken({ q: q.fingerprint, k: [sortValue(last, q.sortField), last.uid], t: this.clock() });
    }
    return { items, nextPageToken, totalCount, skipped: q.skip };
  }

  private count(q: ParsedQuery): number {
    return this.cachedCount(q.fingerprint, q.where, q.params);
  }

  private countOfKind(kind: Kind): number {
    return this.cachedCount(`kind:${kind}`, ['kind = ?'], [kind]);
  }

  private cachedCount(key: string, where: string[], params: unknown[]): number {
    const cached = this.countCache.get(key);
    if (cached && cached.version === this.store.writeVersion) return cached.count;
    const sql = `SELECT count(*) AS n FROM resources WHERE ${where.join(' AND ')}`;
    const { n } = this.store.prepare(sql).get(...params) as { n: number };
    if (this.countCache.size > 1000) this.countCache.clear();
    this.countCache.set(key, { version: this.store.writeVersion, count: n });
    return n;
  }

  private parse(query: URLSearchParams, opts: ListOptions): ParsedQuery {
    const filterColumns = opts.filterColumns ?? {};
    const single = new Map<string, string>();
    const multi = new Map<string, string[]>();
    const spelledAs = new Map<string, string>(); // wire name → the spelling given
    for (const [rawKey, value] of query) {
      if (Object.hasOwn(filterColumns, rawKey)) {
        const values = value.split(',').map((v) => v.trim()).filter(Boolean);
        multi.set(rawKey, [...(multi.get(rawKey) ?? []), ...values]);
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

    const where = ['kind = ?'];
    const params: unknown[] = [opts.kind];
    const descendantsOf = single.get('uidp.descendants_of');
    if (descendantsOf !== undefined) {
      if (!descendantsOf) throw invalidField('uidp.descendants_of', 'must not be empty');
      // Every descendant's uid starts with "<uid>/"; '0' is the character after '/'.
      where.push('uid > ? AND uid < ?');
      params.push(`${descendantsOf}/`, `${descendantsOf}0`);
    }
    const childrenOf = single.get('uidp.children_of');
    if (childrenOf !== undefined) {
      if (!childrenOf) throw invalidField('uidp.children_of', 'must not be empty');
      where.push('parent = ?');
      params.push(childrenOf);
    }
    const name = single.get('name');
    if (name !== undefined) {
      where.push('name = ?');
      params.push(name);
    }
    for (const [key, values] of [...multi].sort(([a], [b]) => a.localeCompare(b))) {
      if (!values.length) continue;
      where.push(`${filterColumns[key]} IN (${values.map(() => '?').join(', ')})`);
      params.push(...values);
    }
    if (opts.scope) {
      where.push(`(${opts.scope.sql})`);
      params.push(...opts.scope.params);
    }

    const fingerprint = createHash('sha256')
      .update(JSON.stringify([where, params, sortField, desc, opts.scope?.key ?? '']))
      .digest('base64url')
      .slice(0, 22);
    const parsed: ParsedQuery = {
      pageSize: Math.min(pageSize, PAGE_SIZE_MAX), skip, sortField, desc, where, params, fingerprint,
      kind: opts.kind, subtree: descendantsOf !== undefined,
    };
    const token = single.get('page_token');
    if (token) parsed.cursor = this.readToken(token, fingerprint);
    return parsed;
  }

  private signToken(payload: TokenPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.tokenKey).update(body).digest('base64url');
  }

  /** The cursor a token carries; undefined when it has expired (the query restarts, spec rule 5). */
  private readToken(token: string, fingerprint: string): [string, string] | undefined {
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
    if (payload.q !== fingerprint) {
      throw invalidField('page_token', 'belongs to a different query (filters and order_by must stay the same across pages)');
    }
    const age = this.clock() - payload.t;
    if (age > PAGE_TOKEN_TTL_MS || age < -PAGE_TOKEN_TTL_MS) return undefined;
    return payload.k;
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

const SORT_INDEXES = { name: 'resources_kind_name', createTime: 'resources_kind_create', updateTime: 'resources_kind_update' } as const;

/**
 * A subtree sorted by anything but uid can be read two ways: its uid range, then sorted
 * (cost ~ the subtree's size m), or the sort index, skipping rows outside the subtree until
 * a page is full (cost ~ page x N / m, N rows of the kind). The exact counts (cached) pick
 * the cheaper, so `--descendants-of ORG` over 100k groups pages as fast as a small team's.
 */
function indexHint(q: ParsedQuery, matches: number, ofKind: number): string {
  if (!q.subtree || q.sortField === 'uid') return '';
  const rangeCost = 2 * matches; // read + sort
  const walkCost = ((q.pageSize + 1 + q.skip) * ofKind) / Math.max(matches, 1);
  return `INDEXED BY ${rangeCost <= walkCost ? 'resources_kind_uid' : SORT_INDEXES[q.sortField]}`;
}

function sortValue(rec: Record_, field: keyof typeof SORT_COLUMNS): string {
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

function parseOrderBy(raw: string | undefined): { sortField: keyof typeof SORT_COLUMNS; desc: boolean } {
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
