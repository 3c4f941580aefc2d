// What the store keeps of committed rows between writes: rows by uid, the shared read-only
// records pages show, and write counts by kind that caches built from the data compare against.
import { ancestorsOf, type CountedRow } from './counts.js';
import { rowToRecord, type Kind, type Record_ } from './record.js';
import type { StoredRow } from './shared.js';

/** Where the cache reads what it does not hold: the database, and whether a write is open in it. */
export interface RowSource {
  row(uid: string): StoredRow | undefined;
  rows(uids: readonly string[]): StoredRow[];
  inTransaction(): boolean;
}

export class RecordCache {
  /** Writes by kind, and an epoch for writes whose kinds are not known (a delete, a batch rolled back). */
  private readonly kindWrites = new Map<string, number>();
  private epoch = 0;
  /** Writes by kind and scope (`kind \0 scope`, see scopeVersion), so that a write leaves other scopes' caches alone. */
  private readonly scopeWrites = new Map<string, number>();

  constructor(private readonly source: RowSource) {}

  // Rows as committed, kept until they are written: insert, update and remove drop the row
  // they write, so a write elsewhere leaves the others cached (the parent a create checks
  // stays cached across creates). Rows read inside a transaction are not kept, since a
  // rollback could take them back. Rows are plain strings, and every get() builds a fresh
  // record from its row, so nothing a caller changes can leak into the cache.
  private readonly rowCache = new Map<string, StoredRow | undefined>();

  // Rows read inside the transaction open now, as it sees them: dropped when it rolls back (or
  // a savepoint does) and when written, so a bulk load reads each parent once, not per child.
  private readonly transactionRows = new Map<string, StoredRow | undefined>();

  row(uid: string): StoredRow | undefined {
    const cached = this.rowCache.get(uid);
    if (cached || this.rowCache.has(uid)) return cached;
    if (this.source.inTransaction()) {
      const seen = this.transactionRows.get(uid);
      if (seen || this.transactionRows.has(uid)) return seen;
      const row = this.source.row(uid);
      if (this.transactionRows.size >= 10_000) this.transactionRows.clear();
      this.transactionRows.set(uid, row);
      return row;
    }
    this.transactionRows.clear(); // the transaction they were read in is over
    const row = this.source.row(uid);
    if (this.rowCache.size >= 10_000) this.rowCache.clear();
    this.rowCache.set(uid, row);
    return row;
  }

  // The records lists show, each kept until its row is written. Shared by every page that
  // shows them (and so never changed by anyone), they let a page's wire JSON be cached per record.
  private readonly sharedRecords = new Map<string, Record_>();

  /** The shared, read-only record of a uid (see sharedRecordsOf); undefined when there is none. */
  sharedRecord(uid: string): Record_ | undefined {
    if (this.source.inTransaction()) {
      const row = this.row(uid);
      return row && rowToRecord(row);
    }
    let rec = this.sharedRecords.get(uid);
    if (!rec) {
      const row = this.row(uid);
      if (!row) return undefined;
      rec = rowToRecord(row);
      if (this.sharedRecords.size >= 50_000) this.sharedRecords.clear();
      this.sharedRecords.set(uid, rec);
    }
    return rec;
  }

  /**
   * The records of these uids, in this order (every one must exist): shared and read-only.
   * A record object stays the same until its row is written, so it can key caches of what
   * is derived from it.
   */
  sharedRecordsOf(uids: readonly string[]): Record_[] {
    const cache = this.source.inTransaction() ? new Map<string, Record_>() : this.sharedRecords;
    const records = uids.map((uid) => cache.get(uid));
    const missing = uids.filter((_, i) => !records[i]);
    if (!missing.length) return records as Record_[];
    // A full cache is cleared, the records this page found in it included: those come from `records`.
    if (cache.size + missing.length > 50_000) cache.clear();
    for (const row of this.source.rows(missing)) cache.set(row.uid, rowToRecord(row));
    return uids.map((uid, i) => {
      const rec = records[i] ?? cache.get(uid);
      if (!rec) throw new Error(`no resource ${uid}`);
      return rec;
    });
  }

  /**
   * Writes were rolled back, whatever their kinds: what was derived from them inside the
   * transaction (a count, a caller's grants) is stale although their versions are not.
   */
  rolledBack(): void {
    this.epoch++;
    this.transactionRows.clear();
  }

  /** Every row may have changed (a restore; the store calls rolledBack() too): no row or record is kept. */
  replacedAll(): void {
    this.rowCache.clear();
    this.transactionRows.clear();
    this.sharedRecords.clear();
  }

  /** A row was written: `row` says what it is and where (its kind and parent; none: not known, every cache is dropped). */
  wrote(uid: string, row?: CountedRow): void {
    // Dropped even when the write is rolled back later: the next read finds the row as it is.
    this.rowCache.delete(uid);
    this.sharedRecords.delete(uid);
    this.transactionRows.delete(uid);
    if (!row) {
      this.epoch++;
      return;
    }
    this.kindWrites.set(row.kind, (this.kindWrites.get(row.kind) ?? 0) + 1);
    if (this.bulk) return; // the epoch moved for all of them
    // Bounded: past this many scopes written, they start again (and so does every cache).
    if (this.scopeWrites.size > 100_000) {
      this.scopeWrites.clear();
      this.epoch++;
    }
    const bump = (scope: string) => {
      const key = `${row.kind}\0${scope}`;
      this.scopeWrites.set(key, (this.scopeWrites.get(key) ?? 0) + 1);
    };
    bump(row.parent === null ? '^' : `>${row.parent}`);
    for (const a of ancestorsOf(uid)) bump(`/${a}`);
    bump(`/${uid}`);
  }

  private bulk = false;

  /**
   * A bulk load runs (or ended): every scope moves at once, by the epoch, instead of by each of
   * its rows (a seed's million rows made a million scope versions, then threw them away).
   */
  bulkLoad(running: boolean): void {
    this.bulk = running;
    this.epoch++;
  }

  /**
   * Changes whenever a row of this kind may have changed in one of these scopes: '' the whole
   * kind, '^' the rows without a parent, '>P' P's children, '/S' S and everything below it.
   * What a list read (its page, its count) is cached against: a write elsewhere leaves it be.
   */
  scopeVersion(kind: Kind, scopes: readonly string[]): string {
    let v = `${this.epoch}`;
    for (const s of scopes) v += `/${(s === '' ? this.kindWrites.get(kind) : this.scopeWrites.get(`${kind}\0${s}`)) ?? 0}`;
    return v;
  }

  /**
   * Changes whenever a record of one of these kinds may have changed: for caches that depend
   * on a few kinds (who a token's identity is, what its bindings grant), so that creating a
   * group does not throw them away.
   */
  versionOf(kinds: readonly Kind[]): string {
    let v = `${this.epoch}`;
    for (const k of kinds) v += `/${this.kindWrites.get(k) ?? 0}`;
    return v;
  }
}
