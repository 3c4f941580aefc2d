// The durable store: typed access to the resources table. Every method that writes runs
// in a transaction that has committed (and fsynced) by the time it returns. A facade over its
// parts, one concern each:
//   statements.ts    the SQL, compiled once
//   writer.ts        group commit, change capture (the feed and its in-transaction hooks: the
//                    outbox), change seqs, bulk loads, the row writes
//   mirror.ts        the PostgreSQL side: a replica's mirror following the shared log
//   meta.ts          meta values and subscribers' entries, cached
//   snapshot.ts      consistent copies and restores
//   record-cache.ts  committed rows and records between writes; write versions by kind and scope
//   counts.ts        the rows of each kind in each list scope, kept by the writes
import type { Statement } from 'better-sqlite3';
import { ChangeFeed, type WriteOrigin } from './changes.js';
import { ResourceCounts } from './counts.js';
import { openDatabase, openMirrorDatabase, type DB } from './db.js';
import { MetaValues, NO_GUARD, type WriteGuard } from './meta.js';
import { Mirror } from './mirror.js';
import { SqliteOutbox, type Outbox } from './outbox.js';
import { rowToRecord, type Kind, type Record_ } from './record.js';
import { RecordCache } from './record-cache.js';
import type { SharedDatabase } from './shared.js';
import { replaceRows, saveCopy } from './snapshot.js';
import { Statements, type Row } from './statements.js';
import { CHANGE_SEQ, Writer } from './writer.js';

export type { Kind, Record_ } from './record.js';
export { IncompatibleDatabaseError } from './snapshot.js';

export class Store {
  readonly db: DB;
  /** Every committed change of a resource row (see changes.ts). */
  readonly changes = new ChangeFeed();
  /** The shared database this store mirrors, if any (serve --database). */
  readonly shared: SharedDatabase | undefined;
  /**
   * The outbox (outbox.ts): events and their deliveries. A change feed hook writes them with
   * `sqliteOutbox` into this database, in the write's transaction; on a shared database that
   * is the mirror's transaction, and the mirror carries what it holds into the commit.
   */
  readonly outbox: Outbox;
  readonly sqliteOutbox: SqliteOutbox;
  private readonly stmts: Statements;
  /** Committed rows and records between writes, and write counts by kind (record-cache.ts). */
  private readonly cache: RecordCache;
  /** The rows of each kind in each list scope, kept by the writes (counts.ts). */
  private readonly counts: ResourceCounts;
  private readonly meta: MetaValues;
  private readonly writer: Writer;
  private readonly mirror: Mirror | undefined;

  /**
   * The SQLite database of a data dir; or, given a shared database (PostgreSQL), an in-memory
   * mirror of it: reads are answered from the mirror, writes are committed there first.
   */
  constructor(dataDir: string);
  constructor(shared: SharedDatabase);
  constructor(home: string | SharedDatabase) {
    const db = (this.db = typeof home === 'string' ? openDatabase(home) : openMirrorDatabase());
    this.shared = typeof home === 'string' ? undefined : home;
    this.sqliteOutbox = new SqliteOutbox(db);
    this.outbox = this.shared?.outbox ?? this.sqliteOutbox;
    const stmts = (this.stmts = new Statements(db));
    this.counts = new ResourceCounts(db);
    this.cache = new RecordCache({
      row: (uid) => stmts.row(uid),
      rows: (uids) => stmts.getMany.all(JSON.stringify(uids)) as Row[],
      inTransaction: () => db.inTransaction,
    });
    // The mirror, made after the parts it guards, is told of each write through this.
    let guard: WriteGuard = NO_GUARD;
    const deferredGuard: WriteGuard = { row: (uid) => guard.row(uid), meta: (key) => guard.meta(key) };
    this.meta = new MetaValues(stmts, deferredGuard);
    const parts = { db, stmts, counts: this.counts, cache: this.cache, changes: this.changes, meta: this.meta };
    this.writer = new Writer({ ...parts, guard: deferredGuard });
    if (this.shared) {
      const mirror = (this.mirror = new Mirror(this.shared, { ...parts, sqliteOutbox: this.sqliteOutbox }, this.writer));
      guard = mirror;
      this.writer.commitThrough(mirror);
    }
  }

  /** Closes the database (and, for a shared one, its connections). */
  async close(): Promise<void> {
    if (this.db.open) this.db.close();
    await this.shared?.close();
  }

  // ---- A shared database: the mirror (mirror.ts) --------------------------------------------

  /**
   * Brings the mirror up to what the shared database has committed; undefined (nothing to
   * wait for) for a data dir's own SQLite file. Called before each request.
   */
  refresh(): Promise<void> | undefined {
    return this.mirror?.refresh();
  }

  /** Loads every row and meta value of the shared database into the mirror (at start). */
  async reload(): Promise<void> {
    await this.mirror?.load();
  }

  // ---- Writes (writer.ts) --------------------------------------------------------------------

  /** A request's write, committed with group commit before the promise settles (Writer.write). */
  write<T>(fn: () => T, origin?: WriteOrigin): Promise<T> {
    return this.writer.write(fn, origin);
  }

  /** Runs fn in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.writer.transaction(fn);
  }

  /** Runs fn, a write of many rows, inside the write that calls it, with the list indexes built once at its end (Writer.bulkLoad). */
  bulkLoad<T>(fn: () => T): T {
    return this.writer.bulkLoad(fn);
  }

  insert(rec: Record_): void {
    this.writer.insert(rec);
  }

  update(rec: Record_): void {
    this.writer.update(rec);
  }

  remove(uid: string): boolean {
    return this.writer.remove(uid);
  }

  // ---- Snapshots (snapshot.ts) ---------------------------------------------------------------

  /** A consistent copy of the database in `file`, taken while it is served. */
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
        this.writer.replacedAll();
        adjust();
      });
      this.changes.publishReset();
    });
  }

  // ---- Reads ---------------------------------------------------------------------------------

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

  /** Counts of a resource's direct children by kind ({group: 2, identity: 1}). */
  childCounts(uid: string): Partial<Record<Kind, number>> {
    const out: Partial<Record<Kind, number>> = {};
    for (const { kind, n } of this.stmts.childKinds.all(uid) as { kind: Kind; n: number }[]) out[kind] = n;
    return out;
  }

  /** A prepared statement, compiled once per SQL text (the list engine builds a few shapes). */
  prepare(sql: string): Statement {
    return this.stmts.prepare(sql);
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

  // ---- Meta (meta.ts) ------------------------------------------------------------------------

  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }

  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
  }

  /**
   * An entry of a table of a subscriber's own (an outbox: see ChangeFeed.inTransaction), kept
   * with the meta values under `<table>/<key>`, so that it commits with the write it is made
   * in, on SQLite and (through the log) on a shared database alike; null removes it.
   */
  putEntry(table: string, key: string, value: string | null): void {
    this.meta.putEntry(table, key, value);
  }

  /** A table's entries (putEntry), by key, at most `limit`, after the key `after`. */
  entries(table: string, limit = 1000, after = ''): [key: string, value: string][] {
    return this.meta.entries(table, limit, after);
  }

  isEmpty(): boolean {
    return this.getMeta('bootstrapped') === undefined;
  }
}
