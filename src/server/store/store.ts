// The durable store: typed access to the resources table. Every method that writes runs
// in a transaction that has committed (and fsynced) by the time it returns.
import type { Statement } from 'better-sqlite3';
import { ChangeFeed, changeOf, type ResourceChange, type WriteOrigin } from './changes.js';
import { ResourceCounts } from './counts.js';
import { openDatabase, openMirrorDatabase, type DB } from './db.js';
import { SqliteOutbox, type Outbox, type OutboxEntry } from './outbox.js';
import { rowToRecord, type Kind, type Record_ } from './record.js';
import { databaseUnavailable, type Change, type SharedDatabase, type StoredRow, type WriteTransaction } from './shared.js';
import { RecordCache } from './record-cache.js';
import { replaceRows, saveCopy } from './snapshot.js';

export type { Kind, Record_ } from './record.js';
export { IncompatibleDatabaseError } from './snapshot.js';

/** A row of the resources table, as SQLite holds it (and a shared database's log carries it). */
type Row = StoredRow;

/** A write without an origin of its own: serve's, by no operation. */
const SERVE_ORIGIN = (): WriteOrigin => ({ actor: null, time: new Date().toISOString(), operation: null });

/** The meta key of the change seqs' ceiling: none handed out is above it (a data dir's own SQLite store). */
const CHANGE_SEQ = 'change_seq';
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
interface PendingWrite {
  fn: () => unknown;
  origin: WriteOrigin | undefined;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
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

export class Store {
  readonly db: DB;
  /** Every committed change of a resource row (see changes.ts). */
  readonly changes = new ChangeFeed();
  /** Committed rows and records between writes, and write counts by kind (record-cache.ts). */
  private readonly cache: RecordCache;
  private readonly prepared = new Map<string, Statement>();
  /** The rows of each kind in each list scope, kept by the writes (counts.ts). */
  private readonly counts: ResourceCounts;
  private readonly stmts: {
    get: Statement<[string]>;
    getMany: Statement<[string]>;
    insert: Statement<[string, string, string | null, string, string | null, string, string, string]>;
    update: Statement<[string, string | null, string, string, string]>;
    remove: Statement<[string]>;
    removeReturning: Statement<[string]>;
    childKinds: Statement<[string]>;
    byAltKey: Statement<[string, string]>;
    byAltKeyFirstPart: Statement<[string, string, string, number]>;
    metaGet: Statement<[string]>;
    metaSet: Statement<[string, string]>;
    children: Statement<[string, string]>;
    roots: Statement<[string]>;
    ofKindByAltKey: Statement<[string]>;
    byAltKeySuffix: Statement<[string, string]>;
    siblingNamed: Statement<[string, string, string, string]>;
    put: Statement<[Row]>;
    metaDelete: Statement<[string]>;
    metaRange: Statement<[string, string, number]>;
  };

  /**
   * The SQLite database of a data dir; or, given a shared database (PostgreSQL), an in-memory
   * mirror of it: reads are answered from the mirror, writes are committed there first.
   */
  constructor(dataDir: string);
  constructor(shared: SharedDatabase);
  constructor(home: string | SharedDatabase) {
    this.db = typeof home === 'string' ? openDatabase(home) : openMirrorDatabase();
    if (typeof home !== 'string') this.shared = home;
    this.sqliteOutbox = new SqliteOutbox(this.db);
    this.outbox = typeof home === 'string' ? this.sqliteOutbox : home.outbox;
    const db = this.db;
    this.counts = new ResourceCounts(db);
    this.cache = new RecordCache({
      row: (uid) => this.stmts.get.get(uid) as Row | undefined,
      rows: (uids) => this.stmts.getMany.all(JSON.stringify(uids)) as Row[],
      inTransaction: () => this.db.inTransaction,
    });
    this.stmts = {
      get: db.prepare('SELECT * FROM resources WHERE uid = ?'),
      getMany: db.prepare('SELECT * FROM resources WHERE uid IN (SELECT value FROM json_each(?))'),
      insert: db.prepare('INSERT INTO resources (uid, kind, parent, name, alt_key, create_time, update_time, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      update: db.prepare('UPDATE resources SET name = ?, alt_key = ?, update_time = ?, data = ? WHERE uid = ?'),
      remove: db.prepare('DELETE FROM resources WHERE uid = ?'),
      removeReturning: db.prepare('DELETE FROM resources WHERE uid = ? RETURNING uid, kind, parent'),
      childKinds: db.prepare('SELECT kind, count(*) AS n FROM resources WHERE parent = ? GROUP BY kind'),
      byAltKey: db.prepare('SELECT * FROM resources WHERE kind = ? AND alt_key = ?'),
      // '\v' is the character after '\n': the range holds exactly the keys starting "<first>\n".
      byAltKeyFirstPart: db.prepare('SELECT * FROM resources WHERE kind = ? AND alt_key > ? AND alt_key < ? ORDER BY name, uid LIMIT ?'),
      metaGet: db.prepare('SELECT value FROM meta WHERE key = ?'),
      metaSet: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      children: db.prepare('SELECT * FROM resources WHERE parent = ? AND kind = ? ORDER BY name, uid'),
      roots: db.prepare('SELECT * FROM resources WHERE kind = ? AND parent IS NULL ORDER BY name, uid'),
      ofKindByAltKey: db.prepare('SELECT * FROM resources WHERE kind = ? ORDER BY alt_key, name, uid'),
      byAltKeySuffix: db.prepare("SELECT count(*) AS n FROM resources WHERE kind = ? AND alt_key LIKE ? ESCAPE '!'"),
      siblingNamed: db.prepare('SELECT * FROM resources WHERE parent = ? AND kind = ? AND name = ? AND uid <> ? LIMIT 1'),
      put: db.prepare(
        'INSERT INTO resources (uid, kind, parent, name, alt_key, create_time, update_time, data) VALUES (@uid, @kind, @parent, @name, @alt_key, @create_time, @update_time, @data) ' +
          'ON CONFLICT (uid) DO UPDATE SET kind = excluded.kind, parent = excluded.parent, name = excluded.name, alt_key = excluded.alt_key, ' +
          'create_time = excluded.create_time, update_time = excluded.update_time, data = excluded.data',
      ),
      metaDelete: db.prepare('DELETE FROM meta WHERE key = ?'),
      metaRange: db.prepare('SELECT key, value FROM meta WHERE key > ? AND key < ? ORDER BY key LIMIT ?'),
    };
  }

  /**
   * The outbox (outbox.ts): events and their deliveries. A change feed hook writes them with
   * `sqliteOutbox` into this database, in the write's transaction; on a shared database that
   * is the mirror's transaction, and flushShared() carries what it holds into the commit.
   */
  readonly outbox: Outbox;
  readonly sqliteOutbox: SqliteOutbox;

  /** Closes the database (and, for a shared one, its connections). */
  async close(): Promise<void> {
    if (this.db.open) this.db.close();
    await this.shared?.close();
  }

  // ---- A shared database (PostgreSQL): the mirror and the log -------------------------------

  /** The shared database this store mirrors, if any (serve --database). */
  readonly shared: SharedDatabase | undefined;
  /** The log position the mirror stands at. */
  private seq = 0;
  /** What the writes of a batch touched, while the batch runs against the mirror. */
  private touched: { uids: Set<string>; meta: Set<string> } | undefined;
  private refreshing: Promise<void> | undefined;
  private queuedRefresh: Promise<void> | undefined;

  /**
   * Brings the mirror up to what the shared database has committed; undefined (nothing to
   * wait for) for a data dir's own SQLite file. Called before each request, so that a
   * request sees every write acknowledged before it arrived, by whichever replica. Requests
   * arriving while a refresh is under way share the next one (it starts after they arrived).
   */
  refresh(): Promise<void> | undefined {
    if (!this.shared) return undefined;
    if (!this.refreshing) {
      const run = this.catchUp();
      // The callers see a failure through `run`; the requests queued behind it start another.
      this.refreshing = run.then(
        () => { this.refreshing = undefined; },
        () => { this.refreshing = undefined; },
      );
      return run;
    }
    return (this.queuedRefresh ??= this.refreshing.then(() => {
      this.queuedRefresh = undefined;
      return this.refresh();
    }));
  }

  private async catchUp(): Promise<void> {
    let changes: Change[] | 'gap';
    try {
      changes = await this.shared!.changesSince(this.seq);
    } catch (err) {
      throw databaseUnavailable(err);
    }
    if (changes === 'gap') await this.reload();
    else this.apply(changes);
  }

  /** Loads every row and meta value of the shared database into the mirror (at start; after a gap). */
  async reload(): Promise<void> {
    const state = await this.shared!.loadAll();
    if (state.seq < this.seq) return; // a write of ours, applied meanwhile, is newer than this read
    this.db.transaction(() => {
      this.db.exec('DELETE FROM resources; DELETE FROM meta');
      for (const row of state.rows) this.stmts.put.run(row);
      for (const [key, value] of state.meta) this.stmts.metaSet.run(key, value);
      this.counts.rebuild();
    })();
    this.seq = state.seq;
    this.replacedAll();
    this.changes.publishReset();
  }

  /** Applies log entries to the mirror, in order; those it already holds (a write of its own) are skipped. */
  private apply(changes: readonly Change[]): void {
    const fresh = changes.filter((c) => c.seq > this.seq);
    if (!fresh.length) return;
    this.applying = true;
    let published: ResourceChange[];
    try {
      published = this.applyToMirror(fresh);
    } finally {
      this.applying = false;
    }
    this.seq = fresh[fresh.length - 1]!.seq;
    this.changes.publish(published);
  }

  /** Writes log entries into the mirror; the resource changes they are, when someone listens. */
  private applyToMirror(fresh: readonly Change[]): ResourceChange[] {
    const listening = this.changes.active;
    const out: ResourceChange[] = [];
    this.db.transaction(() => this.counts.batch(() => {
      for (const c of fresh) {
        if (c.target === 'm') {
          if (c.value === null) this.stmts.metaDelete.run(c.key);
          else this.stmts.metaSet.run(c.key, c.value);
          this.metaCache.delete(c.key);
          continue;
        }
        const before = this.stmts.get.get(c.key) as Row | undefined;
        const after = c.value === null ? undefined : (JSON.parse(c.value) as Row);
        if (after) this.stmts.put.run(after);
        else this.stmts.remove.run(c.key);
        if (before) this.counts.changed(before, -1);
        if (after) this.counts.changed(after, 1);
        // A row that moved to another parent (a put may) has two places; the epoch covers both.
        const moved = before && after && (before.parent !== after.parent || before.kind !== after.kind);
        this.wrote(c.key, moved ? undefined : (after ?? before));
        if (!listening) continue;
        const origin = { actor: c.actor ?? null, time: c.time ?? '', operation: c.operation ?? null };
        const change = changeOf(c.seq, before && rowToRecord(before), after && rowToRecord(after), origin);
        if (change) out.push(change);
      }
    }))();
    return out;
  }

  private flushing = false;
  /** Set while apply() writes what the log says into the mirror. */
  private applying = false;

  /**
   * A mirror takes writes only from a batch (write()) or the log: anything else would be
   * seen by this replica alone and lost at its next start.
   */
  private checkWritable(): void {
    if (this.shared && !this.touched && !this.applying) throw new Error('a store on a shared database is written only through write()');
  }

  /**
   * A batch of writes against a shared database: under its write lock, the mirror catches up,
   * the writes run against it (each in a savepoint, as in flush()), and what they left behind
   * is read back and rolled back from the mirror, which takes it again from the log once
   * PostgreSQL has committed it. No response is sent before that COMMIT.
   */
  private async flushShared(): Promise<void> {
    this.flushing = true;
    const batch = this.pending;
    this.pending = [];
    const settle: (() => void)[] = [];
    let tx: WriteTransaction | undefined;
    try {
      tx = await this.shared!.beginWrite(this.seq);
      if (tx.missed === 'gap') await this.reload();
      else this.apply(tx.missed);
      const { changes, outbox } = this.runAgainstMirror(batch, settle);
      await tx.commit(changes, outbox);
      this.apply(changes);
    } catch (err) {
      await tx?.rollback();
      const failure = databaseUnavailable(err);
      for (const item of batch) item.reject(failure);
      settle.length = 0;
    } finally {
      // The log's entries told the feed of each row (apply): no reset besides.
      this.resetAfterCommit = false;
      this.flushing = false;
      if (this.pending.length) setImmediate(() => void this.flushShared());
    }
    for (const done of settle) done();
  }

  /** Runs the batch in a mirror transaction that is rolled back; returns the log entries of what it did. */
  private runAgainstMirror(batch: PendingWrite[], settle: (() => void)[]): { changes: Change[]; outbox: OutboxEntry[] } {
    const entries: Change[] = [];
    this.db.exec('BEGIN');
    try {
      for (const item of batch) {
        this.db.exec('SAVEPOINT request');
        this.touched = { uids: new Set(), meta: new Set() };
        const mark = entries.length;
        // The item's rows go into the log in the order they were first written; a change
        // the feed reports carries its row's log seq.
        const logged = new Map<string, number>();
        const origin = item.origin ?? SERVE_ORIGIN();
        const logRow = (uid: string): number => {
          let seq = logged.get(uid);
          if (seq === undefined) {
            const row = this.stmts.get.get(uid) as Row | undefined;
            seq = this.seq + entries.length + 1;
            entries.push({
              seq, target: 'r', key: uid, value: row ? JSON.stringify(row) : null, actor: origin.actor, time: origin.time, operation: origin.operation,
            });
            logged.set(uid, seq);
          }
          return seq;
        };
        try {
          const value = this.runItem(item, logRow);
          for (const uid of this.touched.uids) logRow(uid);
          for (const key of this.touched.meta) {
            const row = this.stmts.metaGet.get(key) as { value: string } | undefined;
            entries.push({ seq: this.seq + entries.length + 1, target: 'm', key, value: row?.value ?? null });
          }
          this.db.exec('RELEASE request');
          settle.push(() => item.resolve(value));
        } catch (err) {
          entries.length = mark;
          this.db.exec('ROLLBACK TO request');
          this.db.exec('RELEASE request');
          this.rolledBack();
          settle.push(() => item.reject(err));
        }
      }
      // The outbox rows the hooks wrote: the mirror's outbox tables hold nothing else.
      return { changes: entries, outbox: this.sqliteOutbox.takeAll() };
    } finally {
      this.touched = undefined;
      this.db.exec('ROLLBACK');
      this.rolledBack();
    }
  }

  /** What the write running now touched (see capture()); undefined between writes. */
  private scope: WriteScope | undefined;

  /**
   * Runs one write: its function, then (when the feed has subscribers) the changes it made,
   * numbered by `seqOf`, handed to the in-transaction hooks. Returns the function's value;
   * the changes wait in `lastChanges` until the commit publishes them.
   */
  private runItem(item: PendingWrite, seqOf: (uid: string) => number): unknown {
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
    if (!scope.before.has(uid)) scope.before.set(uid, inserting ? undefined : (this.stmts.get.get(uid) as Row | undefined));
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

  private pending: PendingWrite[] = [];

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
      if (this.shared) {
        if (!this.flushing) setImmediate(() => void this.flushShared());
      } else {
        setImmediate(() => this.flush());
      }
    });
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

  /** A consistent copy of the database in `file`, taken while it is served (snapshot.ts). */
  async saveCopy(file: string): Promise<void> {
    await saveCopy(this.db, file);
  }

  private attached = 0;

  /**
   * Replaces the rows of every table with those of another pctl database of the same schema
   * (a snapshot), except the meta rows named in `keepMeta` (they describe this running server,
   * not its data); `adjust` runs in the same transaction, to fit the rows to this server. One
   * write through the group-commit queue, so it serializes with every other write: a request
   * sees the data before or after it, never between, and writes queued after it apply on top.
   */
  async replaceWith(file: string, keepMeta: readonly string[], adjust: () => void = () => {}): Promise<void> {
    // The change seq only grows: a restore keeps this store's.
    await replaceRows(this.db, `snapshot_${++this.attached}`, file, [...keepMeta, CHANGE_SEQ], async (copyRows) => {
      await this.write(() => {
        copyRows();
        this.counts.rebuild();
        this.replacedAll();
        adjust();
      });
      this.changes.publishReset();
    });
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
    const indexes = this.db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN (${LIST_ORDER_INDEXES.map(() => '?').join(', ')})`)
      .all(...LIST_ORDER_INDEXES) as { name: string; sql: string }[];
    for (const { name } of indexes) this.db.exec(`DROP INDEX ${name}`);
    // A page cache for the load (SQLite's default is 2 MiB): each row goes to a random place of
    // the uid b-tree, and past the cache each insert read its pages back (300k groups: 48 s → 34 s).
    const cacheSize = this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma(`cache_size = ${BULK_LOAD_CACHE_KIB}`);
    this.cache.bulkLoad(true);
    const nested = this.bulkLoading;
    this.bulkLoading = true;
    this.resetAfterCommit = true;
    try {
      return fn();
    } finally {
      this.bulkLoading = nested;
      this.cache.bulkLoad(false);
      // Whatever fn did: while the transaction is open, it has them again.
      if (this.db.inTransaction) for (const { sql } of indexes) this.db.exec(sql.replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '));
      if (this.db.open) this.db.pragma(`cache_size = ${cacheSize}`);
    }
  }

  get<K extends Kind = Kind>(uid: string, kind?: K): Record_<K> | undefined {
    const row = this.cache.row(uid);
    if (!row || (kind && row.kind !== kind)) return undefined;
    return rowToRecord<K>(row);
  }

  /** The shared, read-only record of a uid (see sharedRecordsOf); undefined when there is none. */
  sharedRecord(uid: string): Record_ | undefined {
    return this.cache.sharedRecord(uid);
  }

  /**
   * The records of these uids, in this order (every one must exist): shared and read-only.
   * A record object stays the same until its row is written, so it can key caches of what
   * is derived from it.
   */
  sharedRecordsOf(uids: readonly string[]): Record_[] {
    return this.cache.sharedRecordsOf(uids);
  }

  findByAltKey<K extends Kind>(kind: K, altKey: string): Record_<K>[] {
    return (this.stmts.byAltKey.all(kind, altKey) as Row[]).map(rowToRecord<K>);
  }

  /**
   * Records whose alt_key is `<first>\n…`: the identities of an issuer, the role bindings of
   * an identity. Ordered by name, then uid.
   */
  findByAltKeyFirstPart<K extends Kind>(kind: K, first: string, limit = -1): Record_<K>[] {
    return (this.stmts.byAltKeyFirstPart.all(kind, `${first}\n`, `${first}\u000b`, limit) as Row[]).map(rowToRecord<K>);
  }

  /** The direct children of one kind, by name then uid. */
  children<K extends Kind>(parentUid: string, kind: K): Record_<K>[] {
    return (this.stmts.children.all(parentUid, kind) as Row[]).map(rowToRecord<K>);
  }

  /** The records of one kind outside the hierarchy (organizations, built-in roles), by name then uid. */
  roots<K extends Kind>(kind: K): Record_<K>[] {
    return (this.stmts.roots.all(kind) as Row[]).map(rowToRecord<K>);
  }

  /** Every record of a kind, by alt_key, name and uid (advisories by id). */
  allByAltKey<K extends Kind>(kind: K): Record_<K>[] {
    return (this.stmts.ofKindByAltKey.all(kind) as Row[]).map(rowToRecord<K>);
  }

  /** How many records of a kind have this alt_key (artifacts of an ecosystem). */
  countByAltKey(kind: Kind, altKey: string): number {
    return (this.prepare('SELECT count(*) AS n FROM resources WHERE kind = ? AND alt_key = ?').get(kind, altKey) as { n: number }).n;
  }

  /** How many records of a kind have an alt_key ending in `\n<last>` (the bindings of a role). */
  countByAltKeyLastPart(kind: Kind, last: string): number {
    return (this.stmts.byAltKeySuffix.get(kind, `%\n${last.replace(/[!%_]/g, '!$&')}`) as { n: number }).n;
  }

  /** Another child of `parent` of this kind with this name (names unique among siblings). */
  siblingNamed<K extends Kind>(parent: string, kind: K, name: string, exceptUid: string): Record_<K> | undefined {
    const row = this.stmts.siblingNamed.get(parent, kind, name, exceptUid) as Row | undefined;
    return row && rowToRecord<K>(row);
  }

  /** A prepared statement, compiled once per SQL text (the list engine builds a few shapes). */
  prepare(sql: string): Statement {
    let stmt = this.prepared.get(sql);
    if (!stmt) {
      if (this.prepared.size > 500) this.prepared.clear();
      stmt = this.db.prepare(sql);
      this.prepared.set(sql, stmt);
    }
    return stmt;
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

  /**
   * Writes were rolled back, whatever their kinds: what was derived from them inside the
   * transaction (a count, a caller's grants) is stale although their versions are not.
   */
  private rolledBack(): void {
    this.cache.rolledBack();
    this.metaCache.clear(); // a meta value set inside the transaction is gone too
  }

  /** Every row may have changed (a restore): nothing cached is kept. */
  private replacedAll(): void {
    this.rolledBack();
    this.cache.replacedAll();
  }

  private wrote(uid: string, row?: { kind: string; parent: string | null }): void {
    this.checkWritable();
    this.touched?.uids.add(uid);
    this.cache.wrote(uid, row && { uid, kind: row.kind, parent: row.parent });
  }

  /**
   * How many rows of a kind lie in a list scope (counts.ts: '' the kind, '^' the rows without
   * a parent, '>P' P's children, '/A' the rows below A), as the writes so far left it.
   */
  countIn(kind: Kind, scope: string): number {
    return this.counts.count(kind, scope);
  }

  /** Changes whenever a row of the kind may have changed in one of these scopes (RecordCache.scopeVersion). */
  scopeVersion(kind: Kind, scopes: readonly string[]): string {
    return this.cache.scopeVersion(kind, scopes);
  }

  /**
   * Changes whenever a record of one of these kinds may have changed: for caches that depend
   * on a few kinds (who a token's identity is, what its bindings grant), so that creating a
   * group does not throw them away.
   */
  versionOf(kinds: readonly Kind[]): string {
    return this.cache.versionOf(kinds);
  }

  /** Counts of a resource's direct children by kind ({group: 2, identity: 1}). */
  childCounts(uid: string): Partial<Record<Kind, number>> {
    const out: Partial<Record<Kind, number>> = {};
    for (const { kind, n } of this.stmts.childKinds.all(uid) as { kind: Kind; n: number }[]) out[kind] = n;
    return out;
  }

  /** Meta values are read on hot paths (the issuer, on every request) and change rarely: cached. */
  private readonly metaCache = new Map<string, string | undefined>();

  getMeta(key: string): string | undefined {
    if (!this.metaCache.has(key)) this.metaCache.set(key, (this.stmts.metaGet.get(key) as { value: string } | undefined)?.value);
    return this.metaCache.get(key);
  }

  setMeta(key: string, value: string): void {
    this.checkWritable();
    this.touched?.meta.add(key);
    this.stmts.metaSet.run(key, value);
    this.metaCache.set(key, value);
  }

  /**
   * An entry of a table of a subscriber's own (an outbox: see ChangeFeed.inTransaction), kept
   * with the meta values under `<table>/<key>`, so that it commits with the write it is made
   * in, on SQLite and (through the log) on a shared database alike; null removes it.
   */
  putEntry(table: string, key: string, value: string | null): void {
    const metaKey = `${table}/${key}`;
    this.checkWritable();
    this.touched?.meta.add(metaKey);
    if (value === null) this.stmts.metaDelete.run(metaKey);
    else this.stmts.metaSet.run(metaKey, value);
    this.metaCache.delete(metaKey);
  }

  /** A table's entries (putEntry), by key, at most `limit`, after the key `after`. */
  entries(table: string, limit = 1000, after = ''): [key: string, value: string][] {
    const from = `${table}/${after}`;
    const rows = this.stmts.metaRange.all(from, `${table}0`, limit) as { key: string; value: string }[];
    return rows.map((r) => [r.key.slice(table.length + 1), r.value]);
  }

  isEmpty(): boolean {
    return this.getMeta('bootstrapped') === undefined;
  }
}
