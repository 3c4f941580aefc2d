// The list planner: a list query's segments it reads
// (one uid range per visible subtree, narrowed by uidp.*), the index each segment is read
// through (by its estimated cost) and the SQL of each. Pure: what ListEngine (list.ts) runs
// and caches is decided here.
import { ALL, belowScope, childrenScope, UNPARENTED } from './counts.js';
import type { SortField } from './list-query.js';
import type { Kind, Record_ } from './record.js';

/** Whether uid is the group itself or lies below it (a grant on a group covers its subtree). */
export function within(uid: string, groupUid: string): boolean {
  return uid === groupUid || uid.startsWith(`${groupUid}/`);
}

export const SORT_COLUMNS: Record<SortField, string> = { uid: 'uid', name: 'name', createTime: 'create_time', updateTime: 'update_time' };

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



/**
 * One indexed slice of the result. A scoped list is the union of its segments (one per
 * visible subtree, intersected with uidp.descendants_of), each read through an index range
 * of its own, so a list costs what the caller can see, never the whole table.
 */
export type Segment =
  /**
   * from <= uid < to (from < uid with fromExcluded): a subtree (uids are lower-case hex and '/',
   * so [g, g + '0') is g and everything below it).
   */
  | { type: 'range'; from: string; to: string; fromExcluded?: boolean }
  | { type: 'uid'; uid: string }
  /** Rows outside the hierarchy (parent IS NULL). */
  | { type: 'unparented' }
  | { type: 'all' };

export interface ParsedQuery {
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

export type IndexName = 'resources_kind_uid' | 'resources_kind_name' | 'resources_kind_create' | 'resources_kind_update'
  | 'resources_parent' | 'resources_parent_uid' | 'resources_parent_create' | 'resources_alt';

/** (kind, sort column, uid): a kind's rows in each order. */
const SORT_INDEXES: Record<SortField, IndexName> = {
  uid: 'resources_kind_uid', name: 'resources_kind_name', createTime: 'resources_kind_create', updateTime: 'resources_kind_update',
};

/** (parent, kind, sort column, uid): one parent's children (or the rows without one) in that order; none by updateTime. */
const PARENT_SORT_INDEXES: Partial<Record<SortField, IndexName>> = {
  uid: 'resources_parent_uid', name: 'resources_parent', createTime: 'resources_parent_create',
};

/** The uid range of `g`'s descendants: every one starts with "g/", and '0' is the character after '/'. */
function descendantsRange(g: string): [string, string] {
  return [`${g}/`, `${g}0`];
}

/**
 * The segments a query reads: the caller's subtrees, narrowed by uidp.descendants_of and
 * uidp.children_of. Rows outside the hierarchy have no ancestors, so either filter excludes them.
 */
export function segmentsOf(scope: ListScope | undefined, descendantsOf: string | undefined, childrenOf: string | undefined): Segment[] {
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
export function rangeAfterCursor(q: ParsedQuery, seg: Segment): Segment | undefined {
  if (!q.cursor || q.sortField !== 'uid' || seg.type !== 'range') return undefined;
  const cursor = q.cursor[1];
  if (q.desc) return compareText(cursor, seg.to) < 0 ? { type: 'range', from: seg.from, to: cursor } : seg;
  return compareText(cursor, seg.from) >= 0 ? { type: 'range', from: cursor, to: seg.to, fromExcluded: true } : seg;
}

export function orderBy(q: ParsedQuery): string {
  const dir = q.desc ? 'DESC' : 'ASC';
  return q.sortField === 'uid' ? `uid ${dir}` : `${SORT_COLUMNS[q.sortField]} ${dir}, uid ${dir}`;
}

function parentOf(uid: string): string | undefined {
  const i = uid.lastIndexOf('/');
  return i === -1 ? undefined : uid.slice(0, i);
}

/** The WHERE terms of one segment of a query (without the cursor). */
export function conditions(q: ParsedQuery, seg: Segment): { where: string[]; params: unknown[] } {
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
 * Where the maintained counts (counts.ts) answer a segment's number of matches: its scope, and
 * the uid whose own row counts too when it is of the kind (a visible subtree includes its
 * root). Undefined when a filter narrows the segment (those are counted through an index).
 */
export function countedScope(q: ParsedQuery, seg: Segment): { scope: string; self?: string } | undefined {
  if (q.name !== undefined || q.nameContains !== undefined || q.inFilters.length) return undefined;
  switch (seg.type) {
    case 'all': return { scope: q.parent === undefined ? ALL : childrenScope(q.parent) };
    case 'unparented': return q.parent === undefined ? { scope: UNPARENTED } : undefined;
    case 'uid': return undefined;
    case 'range': {
      if (q.parent !== undefined || seg.fromExcluded || !seg.to.endsWith('0')) return undefined;
      const root = seg.to.slice(0, -1);
      if (seg.from === `${root}/`) return { scope: belowScope(root) };
      return seg.from === root ? { scope: belowScope(root), self: root } : undefined;
    }
  }
}

/**
 * The scope a segment's rows lie in, for the versions its cached page and count are checked
 * against (RecordCache.scopeVersion): a write outside it leaves them valid.
 */
export function versionScope(q: ParsedQuery, seg: Segment): string {
  switch (seg.type) {
    case 'all': return q.parent === undefined ? '' : `>${q.parent}`;
    case 'unparented': return '^';
    case 'uid': return `/${seg.uid}`;
    // Every range is a subtree, or the part below its root: [S, S0) or [S/, S0).
    case 'range': return seg.to.endsWith('0') ? `/${seg.to.slice(0, -1)}` : '';
  }
}

/**
 * The index that reads just a segment's matches, and whether it yields them in the requested
 * order. SQLite has no statistics here and would often walk a whole sort index instead, so
 * the engine names the index itself. Undefined: the primary key (one uid), or nothing narrows.
 */
export function drivingIndex(q: ParsedQuery, seg: Segment): { index: IndexName; ordered: boolean } | undefined {
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

export function chooseIndex(q: ParsedQuery, seg: Segment, matches: number, ofKind: number): IndexName | undefined {
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

export function sortValue(rec: Record_, field: SortField): string {
  switch (field) {
    case 'uid': return rec.uid;
    case 'name': return rec.name;
    case 'createTime': return rec.createTime;
    case 'updateTime': return rec.updateTime;
  }
}
