// What a list asks for, typed: the store's own vocabulary, whatever wire it came in on. The
// surfaces parse their parameters into it (src/server/surfaces/list-query.ts); the domain and the
// list engine (list.ts) read nothing else.

/** The orders a list can have: its rows by this field, then by uid. */
export type SortField = 'uid' | 'name' | 'createTime' | 'updateTime';

export interface ListQuery {
  /** At most this many items (0 or none: the default; more than the maximum: the maximum). */
  pageSize?: number;
  /** The token of the page before, as a list gave it (signed; checked by the engine). */
  pageToken?: string;
  /** Items passed over before the page (after the page token's position, when there is one). */
  skip?: number;
  /** By uid ascending when none. */
  order?: { field: SortField; desc: boolean };
  /** uidp.descendants_of: the rows strictly below this uid. */
  descendantsOf?: string;
  /** uidp.children_of: the rows whose parent is this uid. */
  childrenOf?: string;
  /** The rows of exactly this name. */
  name?: string;
  /** The rows whose name contains this, ignoring ASCII case (the artifacts' search). */
  nameContains?: string;
  /** A resource's declared filters, by declared name: the rows matching any of the values (none: no filter). */
  filters?: Readonly<Record<string, readonly string[]>>;
}
