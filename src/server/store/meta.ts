// The meta values (the issuer, the page-token key, bootstrapped …) and the entries of the
// tables subscribers keep beside them (`<table>/<key>`), read through a cache: they are read on
// hot paths (the issuer, on every request) and change rarely.
import type { Statements } from './statements.js';

/** Told of each write before it is made: a replica's mirror refuses those outside a batch and notes the rest (mirror.ts). */
export interface WriteGuard {
  row(uid: string): void;
  meta(key: string): void;
}

export const NO_GUARD: WriteGuard = { row: () => {}, meta: () => {} };

export class MetaValues {
  private readonly cache = new Map<string, string | undefined>();

  constructor(private readonly stmts: Statements, private readonly guard: WriteGuard) {}

  get(key: string): string | undefined {
    if (!this.cache.has(key)) this.cache.set(key, (this.stmts.metaGet.get(key) as { value: string } | undefined)?.value);
    return this.cache.get(key);
  }

  set(key: string, value: string): void {
    this.guard.meta(key);
    this.stmts.metaSet.run(key, value);
    this.cache.set(key, value);
  }

  /** An entry of a subscriber's table under `<table>/<key>`; null removes it. */
  putEntry(table: string, key: string, value: string | null): void {
    const metaKey = `${table}/${key}`;
    this.guard.meta(metaKey);
    if (value === null) this.stmts.metaDelete.run(metaKey);
    else this.stmts.metaSet.run(metaKey, value);
    this.cache.delete(metaKey);
  }

  /** A table's entries, by key, at most `limit`, after the key `after`. */
  entries(table: string, limit = 1000, after = ''): [key: string, value: string][] {
    const from = `${table}/${after}`;
    const rows = this.stmts.metaRange.all(from, `${table}0`, limit) as { key: string; value: string }[];
    return rows.map((r) => [r.key.slice(table.length + 1), r.value]);
  }

  /** A value was written behind the cache's back (a replica applying the log). */
  forget(key: string): void {
    this.cache.delete(key);
  }

  /** A transaction that may have set values rolled back (or every row was replaced): nothing cached is kept. */
  clear(): void {
    this.cache.clear();
  }
}
