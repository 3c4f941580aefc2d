// The one parser of a list's query parameters (REST; gRPC reads and the published List
// requests, through their query; v1 and MCP, through REST): the shared parameters in both
// spellings (page_size or pageSize …), a resource's declared filters (repeatable,
// comma-separated, in either spelling), each single-valued parameter given once; anything else
// is a code-3 error naming it. What it makes is the store's typed ListQuery.
import { ApiError, Code, invalidField } from '../../api/errors.js';
import { ORDER_FIELDS } from '../../api/resources.js';
import { repeatedParam, singleParam } from '../base/params.js';
import type { ListQuery, SortField } from '../store/list-query.js';

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

const SCOPE_PARAMS = new Set(['uidp.descendants_of', 'uidp.children_of']);

export interface ListQueryOptions {
  /** The resource's declared filters, by their declared names (`artifactNames`, `key_id`). */
  filters?: readonly string[];
  /** A single-valued parameter holding a substring of the name (the artifacts' `query`). */
  nameContains?: string;
  /** The list's scope is in its path: uidp.* are refused. */
  scopeInPath?: boolean;
}

const NO_OPTIONS: ListQueryOptions = {};

// The same list asked again (a poller, a page reloaded) comes with the same parameters: parsed
// once per declaration and spelling (the page token is a value like any other).
const parsedQueries = new WeakMap<ListQueryOptions, Map<string, ListQuery>>();

/** The ListQuery of a list's query parameters; a code-3 error for a parameter it does not take or cannot read. */
export function parseListQuery(params: URLSearchParams, opts: ListQueryOptions = NO_OPTIONS): ListQuery {
  let key = '';
  for (const [k, v] of params) key += `${k.length}:${k}${v.length}:${v}`;
  let byKey = parsedQueries.get(opts);
  if (!byKey) parsedQueries.set(opts, (byKey = new Map<string, ListQuery>()));
  let query = byKey.get(key);
  if (!query) {
    query = parseNow(params, opts);
    if (byKey.size >= 1000) byKey.clear();
    byKey.set(key, query);
  }
  return query;
}

function parseNow(params: URLSearchParams, opts: ListQueryOptions): ListQuery {
  const declared = opts.filters ?? [];
  const single = new Map<string, string>();
  const filters: Record<string, string[]> = {};
  const spelledAs = new Map<string, string>(); // wire name → the spelling given
  for (const [rawKey, value] of params) {
    const filter = filterParam(declared, rawKey);
    if (filter) {
      const values = value.split(',').map((v) => v.trim()).filter(Boolean);
      filters[filter] = [...(filters[filter] ?? []), ...values];
      continue;
    }
    // hasOwn: `constructor`, `__proto__` and friends are not parameters.
    const key = rawKey === opts.nameContains ? rawKey : Object.hasOwn(PARAM_ALIASES, rawKey) ? PARAM_ALIASES[rawKey] : undefined;
    if (!key) throw invalidField(rawKey, 'is not a known query parameter');
    if (opts.scopeInPath && SCOPE_PARAMS.has(key)) throw invalidField(rawKey, 'is not a parameter of this list (the artifact is in the path)');
    const earlier = spelledAs.get(key);
    if (earlier !== undefined) throw repeatedParam(key, earlier, rawKey);
    spelledAs.set(key, rawKey);
    single.set(key, value);
  }

  const query: ListQuery = {
    pageSize: parseNonNegativeInt(single.get('page_size'), 'page_size'),
    skip: parseNonNegativeInt(single.get('skip'), 'skip'),
  };
  const order = single.get('order_by');
  if (order !== undefined) query.order = parseOrderBy(order);
  const descendantsOf = single.get('uidp.descendants_of');
  if (descendantsOf === '') throw invalidField('uidp.descendants_of', 'must not be empty');
  if (descendantsOf !== undefined) query.descendantsOf = descendantsOf;
  const childrenOf = single.get('uidp.children_of');
  if (childrenOf === '') throw invalidField('uidp.children_of', 'must not be empty');
  if (childrenOf !== undefined) query.childrenOf = childrenOf;
  const name = single.get('name');
  if (name !== undefined) query.name = name;
  const search = opts.nameContains === undefined ? undefined : single.get(opts.nameContains);
  if (search) query.nameContains = search;
  const token = single.get('page_token');
  if (token) query.pageToken = token;
  if (Object.keys(filters).length) query.filters = filters;
  return query;
}

/** A repeatable, comma-separated parameter's values (`ecosystems=JAVA,PYTHON&ecosystems=…`). */
export function repeatedValues(params: URLSearchParams, name: string): string[] {
  return params.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

/**
 * The declared filter a query parameter names, in either spelling (`artifactNames` or
 * `artifact_names`, `key_id` or `keyId`), as the shared parameters and gRPC transcoding accept.
 */
function filterParam(declared: readonly string[], rawKey: string): string | undefined {
  if (!declared.length) return undefined;
  if (declared.includes(rawKey)) return rawKey;
  const other = otherSpelling(rawKey);
  return other !== rawKey && declared.includes(other) ? other : undefined;
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

function parseNonNegativeInt(raw: string | undefined, field: string): number {
  if (raw === undefined || raw === '') return 0;
  if (!/^-?\d+$/.test(raw.trim())) throw invalidField(field, 'must be an integer');
  const n = Number(raw);
  if (n < 0) throw invalidField(field, 'must not be negative');
  if (!Number.isSafeInteger(n)) throw invalidField(field, 'is too large');
  return n;
}

function parseOrderBy(raw: string): { field: SortField; desc: boolean } {
  if (raw.trim() === '') return { field: 'uid', desc: false };
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
  return { field, desc: direction === 'desc' };
}

// The options of each declaration's list, made once (the parse cache is kept per options object).
const declaredOptions = new WeakMap<object, ListQueryOptions>();

/** A resource's list: the shared parameters and its declared filters. */
export function listOptionsOf(d: { filters: Readonly<Record<string, unknown>> }): ListQueryOptions {
  let opts = declaredOptions.get(d);
  if (!opts) declaredOptions.set(d, (opts = { filters: Object.keys(d.filters) }));
  return opts;
}

/** The catalogue's artifacts: `ecosystems` (repeatable) and `query`, a substring of the name. */
export const ARTIFACT_LIST: ListQueryOptions = { filters: ['ecosystems'], nameContains: 'query' };
/** An artifact's versions: the artifact is in the path. */
export const ARTIFACT_VERSION_LIST: ListQueryOptions = { scopeInPath: true };
/** Vulnerability metadata: by id (`id`, `ids`: repeatable). */
export const VULNERABILITY_METADATA_LIST: ListQueryOptions = { filters: ['id', 'ids'] };

/** The advisory documents' query (not paged): `id` once, `cves` repeatable and comma-separated, nothing else. */
export function parseAdvisoryDocumentQuery(params: URLSearchParams): { id: string | undefined; cves: string[] } {
  for (const key of params.keys()) if (key !== 'id' && key !== 'cves') throw invalidField(key, 'is not a known query parameter');
  return { id: singleParam(params, 'id', ['id']), cves: repeatedValues(params, 'cves') };
}
