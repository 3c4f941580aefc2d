// The writer: every write of the store goes through here. Group commit (the writes queued while
// the event loop was busy commit in one transaction, one fsync), the capture of what each write
// changed (the change feed, and the hooks that write the outbox in the write's transaction), the
// change seqs, bulk loads, and the row writes themselves, which keep the counts and the record
// cache in step. On a shared database a batch is handed to the mirror (mirror.ts) instead.
import { changeOf, type ChangeFeed, type ResourceChange, type WriteOrigin } from './changes.js';
import type { ResourceCounts } from './counts.js';
import type { DB } from './db.js';
import type { MetaValues, WriteGuard } from './meta.js';
import { rowToRecord, type Kind, type Record_ } from './record.js';
import type { RecordCache } from './record-cache.js';
import type { Row, Statements } from './statements.js';

/** A write without an origin of its own: serve's, by no operation. */
export const SERVE_ORIGIN = (): WriteOrigin => ({ actor: null, time: new Date().toISOString(), operation: null });

/** The meta key of the change seqs' ceiling: none handed out is above it (a data dir's own SQLite store). */
export const CHANGE_SEQ = 'change_seq';
/**
 * Seqs reserved at once: the ceiling is written with one write in this many, not with each (a
 * page fewer per commit); a restart goes on above it, skipping what was left of the block.
 */
const CHANGE_SEQ_BLOCK = 1000;

/** The indexes only lists read (db.ts): a bulk load builds them after its rows (bulkLoad). */
const LIST_ORDER_INDEXES = ['resources_kind_uid', 'resources_kind_name', 'resources_kind_create', 'resources_kind_update', 'resources_parent_uid', 'resources_parent_create'];

/** The page cache of a bulk load, in SQLite's negative-KiB form: 256 MiB at most, given back after it. */
const BULK_LOAD_CACHE_KIB = -262_144;

/** One queued write of the group commit. */
export interface PendingWrite {
  fn: () => unknown;
  origin: WriteOrigin | undefined;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Commits a batch of writes elsewhere (a shared database); returns what settles each write's promise, run once it is over. */
export interface BatchCommitter {
  commitBatch(batch: PendingWrite[]): Promise<(() => void)[]>;
}

/**
 * What the write running now touched: each row as it was before its first write, in order,
 * and as its last write left it (undefined: deleted), known from the writes themselves.
 */
interface WriteScope {
  origin: WriteOrigin | undefined;
  before: Map<string, Row | undefined>;
  after: Map<string, Row | undefined>;
}

/** What the writer works on: the store's database and what is kept beside it. */
export interface WriterParts {
  db: DB;
  stmts: Statements;
  counts: ResourceCounts;
  cache: RecordCache;
  changes: ChangeFeed;
  meta: MetaValues;
  guard: WriteGuard;
}

export class Writer {
  private readonly db: DB;
  private readonly stmts: Statements;
  private readonly counts: ResourceCounts;
  private readonly cache: RecordCache;
  private readonly changes: ChangeFeed;
  private readonly meta: MetaValues;
  private readonly guard: WriteGuard;
  /** Where a batch commits when it does not commit here (a shared database's mirror). */
  private committer: BatchCommitter | undefined;

  constructor(parts: WriterParts) {
    ({ db: this.db, stmts: this.stmts, counts: this.counts, cache: this.cache, changes: this.changes, meta: this.meta, guard: this.guard } = parts);
  }

  /** Batches commit through `committer` from now on (Store's constructor, on a shared database). */
  commitThrough(committer: BatchCommitter): void {
    this.committer = committer;
  }

  private pending: PendingWrite[] = [];
  private flushing = false;

  /**
   * A request's write, committed with group commit: the writes queued while the event loop
   * was busy (most often, blocked in the previous commit's fsync) run in one transaction,
   * each in its own savepoint (one that throws is rolled back alone and rejects alone), and
   * one fsync makes all of them durable. Every promise settles only after that COMMIT, so
   * no response is sent for a write that is not on disk. `origin` says who wrote, for the
   * change feed (without one: serve itself, now).
   */
  write<T>(fn: () => T, origin?: WriteOrigin): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, origin, resolve: resolve as (v: unknown) => void, reject });
      if (this.pending.length !== 1) return;
      if (this.committer) {
        if (!this.flushing) setImmediate(() => void this.flushElsewhere());
      } else {
        setImmediate(() => this.flush());
      }
    });
  }

  /** A batch committed by the committer, one at a time: the writes queued meanwhile make the next. */
  private async flushElsewhere(): Promise<void> {
    this.flushing = true;
    const batch = this.pending;
    this.pending = [];
    let settle: (() => void)[];
    try {
      settle = await this.committer!.commitBatch(batch);
    } finally {
      // The log's entries told the feed of each row: no reset besides.
      this.resetAfterCommit = false;
      this.flushing = false;
      if (this.pending.length) setImmediate(() => void this.flushElsewhere());
    }
    for (const done of settle) done();
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    // A lone write needs no savepoint: rolling back the transaction undoes it alone. And a
    // savepoint is not free: SQLite copies every page a write touches, half of an insert's cost.
    const isolate = batch.length > 1;
    const settle: (() => void)[] = [];
    const committed: ResourceChange[] = [];
    const seqAtStart = this.changeSeq;
    const ceilingAtStart = this.changeSeqCeiling;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      for (const item of batch) {
        if (isolate) this.db.exec('SAVEPOINT request');
        const seqBefore = this.changeSeq;
        try {
          const value = this.runItem(item, () => (this.changeSeq = this.loadedChangeSeq() + 1));
          // One by one: a spread passes each change as an argument, and a seed's million overflow the stack.
          for (const change of this.lastChanges) committed.push(change);
          if (isolate) this.db.exec('RELEASE request');
          settle.push(() => item.resolve(value));
        } catch (err) {
          this.changeSeq = seqBefore;
          // SQLite ends the whole transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR,
          // SQLITE_NOMEM …): then the writes before this one are gone too, and the batch fails
          // with this error (not with the "no such savepoint" a ROLLBACK TO would raise).
          if (!this.db.inTransaction) throw err;
          if (isolate) {
            this.db.exec('ROLLBACK TO request');
            this.db.exec('RELEASE request');
          } else {
            this.db.exec('ROLLBACK');
          }
          this.rolledBack();
          settle.push(() => item.reject(err));
        }
      }
      if (this.db.inTransaction) {
        if (this.changeSeq > this.changeSeqCeiling) {
          this.changeSeqCeiling = this.changeSeq + CHANGE_SEQ_BLOCK;
          this.stmts.metaSet.run(CHANGE_SEQ, String(this.changeSeqCeiling));
        }
        this.db.exec('COMMIT');
      }
    } catch (err) {
      // The batch did not commit (disk full, I/O error, store closed): none of it happened.
      try {
        if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // the connection is gone; so is the transaction
      }
      this.changeSeq = seqAtStart;
      this.changeSeqCeiling = ceilingAtStart;
      this.resetAfterCommit = false;
      this.rolledBack();
      for (const item of batch) item.reject(err);
      return;
    }
    this.changes.publish(committed);
    this.publishBulkReset();
    for (const done of settle) done();
  }

  /** The last change seq handed out (a data dir's own store; a shared one numbers by its log); -1: not read yet. */
  private changeSeq = -1;
  /** What the database holds under CHANGE_SEQ: every seq handed out, committed or not, is at most it. */
  private changeSeqCeiling = -1;

  private loadedChangeSeq(): number {
    if (this.changeSeq < 0) {
      this.changeSeqCeiling = Number((this.stmts.metaGet.get(CHANGE_SEQ) as { value: string } | undefined)?.value ?? 0);
      this.changeSeq = this.changeSeqCeiling;
    }
    return this.changeSeq;
  }

  /** What the write running now touched (see capture()); undefined between writes. */
  private scope: WriteScope | undefined;

  /**
   * Runs one write: its function, then (when the feed has subscribers) the changes it made,
   * numbered by `seqOf`, handed to the in-transaction hooks. Returns the function's value;
   * the changes wait in `lastChanges` until the commit publishes them.
   */
  runItem(item: PendingWrite, seqOf: (uid: string) => number): unknown {
    this.scope = { origin: item.origin, before: new Map(), after: new Map() };
    let value: unknown;
    let scope: WriteScope;
    try {
      value = this.counts.batch(item.fn);
    } finally {
      scope = this.scope;
      this.scope = undefined;
    }
    this.lastChanges = [];
    if (!this.changes.active) return value;
    const origin = item.origin ?? SERVE_ORIGIN();
    for (const [uid, before] of scope.before) {
      const after = scope.after.get(uid);
      if (!before && !after) continue;
      const change = changeOf(seqOf(uid), before && rowToRecord(before), after && rowToRecord(after), origin);
      if (change) this.lastChanges.push(change);
    }
    this.changes.runHooks(this.lastChanges);
    return value;
  }

  /** The changes of the last write runItem() ran. */
  private lastChanges: ResourceChange[] = [];

  /**
   * Before a row's write: the row as it was before the first one, for the change it becomes;
   * and the row as it stands now (undefined: none), which an update changes.
   */
  private capture(uid: string, inserting = false): Row | undefined {
    const scope = this.scope;
    if (!scope || !this.changes.active || this.bulkLoading) return undefined;
    if (scope.after.has(uid)) return scope.after.get(uid);
    if (!scope.before.has(uid)) scope.before.set(uid, inserting ? undefined : this.stmts.row(uid));
    return scope.before.get(uid);
  }

  /** After a row's write: the row as it now stands (undefined: deleted). */
  private written(uid: string, row: Row | undefined): void {
    if (this.scope && this.changes.active && !this.bulkLoading) this.scope.after.set(uid, row);
  }

  /** Set while a bulk load runs (bulkLoad): the feed is not told of its rows one by one. */
  private bulkLoading = false;
  /** A bulk load was written: the feed is told of a reset once its transaction commits. */
  private resetAfterCommit = false;

  private publishBulkReset(): void {
    if (!this.resetAfterCommit) return;
    this.resetAfterCommit = false;
    this.changes.publishReset();
  }

  /** Runs fn in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    try {
      const value = this.db.transaction(() => this.counts.batch(fn))();
      if (!this.db.inTransaction) this.publishBulkReset();
      return value;
    } catch (err) {
      if (!this.db.inTransaction) this.resetAfterCommit = false;
      this.rolledBack();
      throw err;
    }
  }

  /**
   * Runs fn, a write of many rows (a large seed, the bench's populate), inside the write that
   * calls it: the indexes that only order lists are dropped first and built once at its end,
   * a sort each instead of a b-tree insert per row and index (~2x faster at 100k groups, and
   * their pages packed full). The indexes the domain's checks read (by parent, by alt key)
   * stay. DDL is transactional: a write that fails and rolls back gets its indexes back too.
   */
  bulkLoad<T>(fn: () => T): T {
    // Its rows are not reported one by one (each change held in memory until the commit: GBs
    // for a million); the feed is told once, after the commit, that everything may have changed.
    if (!this.db.inTransaction) return this.transaction(() => this.bulkLoad(fn));
    // A page cache for the load (SQLite's default is 2 MiB): each row goes to a random place of
    // the uid b-tree, and past the cache each insert read its pages back (300k groups: 48 s → 34 s).
    const cacheSize = this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma(`cache_size = ${BULK_LOAD_CACHE_KIB}`);
    this.cache.bulkLoad(true);
    const nested = this.bulkLoading;
    this.bulkLoading = true;
    this.resetAfterCommit = true;
    try {
      return this.withoutListIndexes(fn);
    } finally {
      this.bulkLoading = nested;
      this.cache.bulkLoad(false);
      if (this.db.open) this.db.pragma(`cache_size = ${cacheSize}`);
    }
  }

  /**
   * Runs fn, inside a transaction, with the indexes that only order lists dropped, and builds
   * them once at its end (a bulk load).
   */
  private withoutListIndexes<T>(fn: () => T): T {
    const restore = this.dropListIndexes();
    try {
      return fn();
    } finally {
      restore();
    }
  }

  /**
   * Drops the indexes that only order lists, inside a transaction; the function returned
   * builds them again (a sort each, instead of a b-tree insert per row and index).
   */
  dropListIndexes(): () => void {
    const indexes = this.db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN (${LIST_ORDER_INDEXES.map(() => '?').join(', ')})`)
      .all(...LIST_ORDER_INDEXES) as { name: string; sql: string }[];
    for (const { name } of indexes) this.db.exec(`DROP INDEX ${name}`);
    // Whatever happened meanwhile: while the transaction is open, it has them again.
    return () => {
      if (this.db.inTransaction) for (const { sql } of indexes) this.db.exec(sql.replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '));
    };
  }

  insert(rec: Record_): void {
    this.capture(rec.uid, true);
    const data = JSON.stringify(rec.data);
    this.stmts.insert.run(rec.uid, rec.kind, rec.parent, rec.name, rec.altKey, rec.createTime, rec.updateTime, data);
    this.written(rec.uid, {
      uid: rec.uid, kind: rec.kind, parent: rec.parent, name: rec.name, alt_key: rec.altKey, create_time: rec.createTime, update_time: rec.updateTime, data,
    });
    this.counts.changed(rec, 1);
    this.wrote(rec.uid, rec);
  }

  update(rec: Record_): void {
    const current = this.capture(rec.uid);
    const data = JSON.stringify(rec.data);
    this.stmts.update.run(rec.name, rec.altKey, rec.updateTime, data, rec.uid);
    if (current) this.written(rec.uid, { ...current, name: rec.name, alt_key: rec.altKey, update_time: rec.updateTime, data });
    this.wrote(rec.uid, rec);
  }

  remove(uid: string): boolean {
    this.capture(uid);
    const gone = this.stmts.removeReturning.get(uid) as { uid: string; kind: Kind; parent: string | null } | undefined;
    this.written(uid, undefined);
    if (!gone) return false;
    this.counts.changed(gone, -1);
    this.wrote(uid, gone);
    return true;
  }

  /** A row was written: the guard is told, and the record cache drops what it held of it (and of its scopes). */
  wrote(uid: string, row?: { kind: string; parent: string | null }): void {
    this.guard.row(uid);
    this.cache.wrote(uid, row && { uid, kind: row.kind, parent: row.parent });
  }

  /**
   * Writes were rolled back, whatever their kinds: what was derived from them inside the
   * transaction (a count, a caller's grants) is stale although their versions are not.
   */
  rolledBack(): void {
    this.cache.rolledBack();
    this.meta.clear(); // a meta value set inside the transaction is gone too
  }

  /** Every row may have changed (a restore, a replica's reload): nothing cached is kept. */
  replacedAll(): void {
    this.rolledBack();
    this.cache.replacedAll();
  }
}
