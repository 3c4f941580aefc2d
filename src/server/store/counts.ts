// How many rows of each kind lie in each scope a list can ask for, kept in the resource_counts
// table by the writes themselves (in their transaction): a list's totalCount, and the planner's
// size of a kind, are read here instead of counting the rows, so a write does not make the next
// list cost the whole kind. Scopes (the table's `scope` column; no uid starts with these marks):
//   ''       every row of the kind
//   '^'      the rows without a parent (organizations, built-in roles, advisories …)
//   '>' + P  the rows whose parent is P (uidp.children_of)
//   '/' + A  the rows strictly below A by uid (uidp.descendants_of: uid starts with "A/")
import type { Database as DB, Statement } from 'better-sqlite3';

export const COUNTS_SCHEMA = `CREATE TABLE resource_counts (
    kind TEXT NOT NULL,
    scope TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (kind, scope)
  ) WITHOUT ROWID;`;

/** Tables derived from the resources table: a restore rebuilds them instead of copying them. */
export const DERIVED_TABLES: readonly string[] = ['resource_counts'];

export const ALL = '';
export const UNPARENTED = '^';
export const childrenScope = (parent: string): string => `>${parent}`;
export const belowScope = (uid: string): string => `/${uid}`;

/** What a count follows of a row: where it is and what it is. */
export interface CountedRow { uid: string; kind: string; parent: string | null }

/** The uids a uid lies strictly below: "a/b/c" → "a", "a/b". */
export function ancestorsOf(uid: string): string[] {
  const out: string[] = [];
  for (let i = uid.indexOf('/'); i !== -1; i = uid.indexOf('/', i + 1)) out.push(uid.slice(0, i));
  return out;
}

/** The scopes a row counts in. */
function scopesOf(row: CountedRow): string[] {
  const scopes = [ALL, row.parent === null ? UNPARENTED : childrenScope(row.parent)];
  for (const a of ancestorsOf(row.uid)) scopes.push(belowScope(a));
  return scopes;
}

export class ResourceCounts {
  /** Changes not yet in the table, by kind and scope: those of the write running now. */
  private pending: Map<string, Map<string, number>> | undefined;
  private readonly read: Statement<[string, string]>;
  private readonly add: Statement<[string, string, number]>;

  constructor(private readonly db: DB) {
    this.read = db.prepare('SELECT n FROM resource_counts WHERE kind = ? AND scope = ?');
    // A count that reaches 0 stays as a row of 0: a scope written once is likely written again.
    this.add = db.prepare('INSERT INTO resource_counts (kind, scope, n) VALUES (?, ?, ?) ON CONFLICT (kind, scope) DO UPDATE SET n = n + excluded.n');
  }

  /**
   * Runs fn (inside a transaction) with the counts of what it writes gathered in memory, and
   * written to the table at its end, one statement per scope touched: a bulk load of a million
   * rows writes a few thousand counts, not millions. When fn throws, what it gathered is
   * dropped with the transaction (or savepoint) the caller rolls back. Nested calls join.
   */
  batch<T>(fn: () => T): T {
    if (this.pending) return fn();
    this.pending = new Map();
    try {
      const value = fn();
      this.writePending();
      return value;
    } finally {
      this.pending = undefined;
    }
  }

  /** A row was inserted (+1) or deleted (-1). */
  changed(row: CountedRow, delta: 1 | -1): void {
    if (!this.pending) {
      this.batch(() => this.changed(row, delta));
      return;
    }
    let ofKind = this.pending.get(row.kind);
    if (!ofKind) this.pending.set(row.kind, (ofKind = new Map<string, number>()));
    for (const scope of scopesOf(row)) ofKind.set(scope, (ofKind.get(scope) ?? 0) + delta);
  }

  /** The rows of a kind in a scope, with what the write running now has changed. */
  count(kind: string, scope: string): number {
    const stored = (this.read.get(kind, scope) as { n: number } | undefined)?.n ?? 0;
    return stored + (this.pending?.get(kind)?.get(scope) ?? 0);
  }

  /** Counts every row again (the rows were replaced: a restore, a replica's reload, an older data dir). */
  rebuild(): void {
    this.db.exec('DELETE FROM resource_counts');
    this.batch(() => {
      for (const row of this.db.prepare('SELECT uid, kind, parent FROM resources').iterate() as IterableIterator<CountedRow>) this.changed(row, 1);
    });
  }

  private writePending(): void {
    for (const [kind, ofKind] of this.pending!) {
      for (const [scope, delta] of ofKind) if (delta !== 0) this.add.run(kind, scope, delta);
    }
  }
}
