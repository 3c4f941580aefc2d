// A replica's in-memory SQLite mirror of a shared database (serve --database, PostgreSQL):
// reads are answered from the mirror, which follows the shared log; a batch of writes runs
// against the mirror, is rolled back there, and what it did goes to the shared database as
// log entries (and outbox rows) in one commit, if the log has not moved meanwhile (else it
// runs again on what moved it), then comes back into the mirror from the log like anyone else's.
import { changeOf, type ChangeFeed, type ResourceChange } from './changes.js';
import type { ResourceCounts } from './counts.js';
import type { DB } from './db.js';
import type { MetaValues, WriteGuard } from './meta.js';
import type { OutboxEntry, SqliteOutbox } from './outbox.js';
import { rowToRecord } from './record.js';
import { databaseUnavailable, type Change, type FullState, type SharedDatabase, type WriteTransaction } from './shared.js';
import type { Row, Statements } from './statements.js';
import { SERVE_ORIGIN, type BatchCommitter, type PendingWrite, type Writer } from './writer.js';

/** Log entries applied at once from which the mirror's page cache is raised to LARGE_APPLY_CACHE_KIB (SQLite's negative-KiB form) meanwhile. */
const LARGE_APPLY = 10_000;
const LARGE_APPLY_CACHE_KIB = -262_144;

/** Tries of a batch against the mirror as it stands, before one under the write lock. */
const OPTIMISTIC_ATTEMPTS = 8;

/** A page of loadAll's rows (a JSON array of StoredRow objects) into the mirror. */
const INSERT_PAGE = `INSERT INTO resources (uid, kind, parent, name, alt_key, create_time, update_time, data)
  SELECT value ->> 'uid', value ->> 'kind', value ->> 'parent', value ->> 'name', value ->> 'alt_key',
    value ->> 'create_time', value ->> 'update_time', value ->> 'data'
  FROM json_each(?)`;

/** A batch run against the mirror at log position `at`: the log entries of what it did, and what settles each write. */
interface BatchRun {
  at: number;
  changes: Change[];
  outbox: OutboxEntry[];
  settle: (() => void)[];
}

export interface MirrorParts {
  db: DB;
  stmts: Statements;
  counts: ResourceCounts;
  changes: ChangeFeed;
  meta: MetaValues;
  /** The outbox hooks write into the mirror's own tables; a batch carries what they hold into the commit. */
  sqliteOutbox: SqliteOutbox;
}

export class Mirror implements WriteGuard, BatchCommitter {
  /** The log position the mirror stands at. */
  private seq = 0;
  /** What the writes of a batch touched, while the batch runs against the mirror. */
  private touched: { uids: Set<string>; meta: Set<string> } | undefined;
  private refreshing: Promise<void> | undefined;
  private queuedRefresh: Promise<void> | undefined;
  /** Set while apply() writes what the log says into the mirror. */
  private applying = false;

  constructor(readonly shared: SharedDatabase, private readonly parts: MirrorParts, private readonly writer: Writer) {}

  // ---- WriteGuard: a mirror takes writes only from a batch or the log ----------------------

  /** Anything else would be seen by this replica alone and lost at its next start. */
  private checkWritable(): void {
    if (!this.touched && !this.applying) throw new Error('a store on a shared database is written only through write()');
  }

  row(uid: string): void {
    this.checkWritable();
    this.touched?.uids.add(uid);
  }

  meta(key: string): void {
    this.checkWritable();
    this.touched?.meta.add(key);
  }

  // ---- Following the log ---------------------------------------------------------------------

  /**
   * Brings the mirror up to what the shared database has committed. Called before each
   * request, so that a request sees every write acknowledged before it arrived, by whichever
   * replica. Requests arriving while a refresh is under way share the next one (it starts
   * after they arrived).
   */
  refresh(): Promise<void> {
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
      changes = await this.shared.changesSince(this.seq);
    } catch (err) {
      throw databaseUnavailable(err);
    }
    if (changes === 'gap') await this.reload();
    else this.apply(changes);
  }

  /**
   * Loads every row and meta value of the shared database into the mirror, at start (nothing
   * reads the mirror yet): each page of rows goes in as it arrives, in one transaction with
   * the list indexes built at its end, so that no more than a page is held in this process.
   */
  async load(): Promise<void> {
    const { db } = this.parts;
    const insert = db.prepare(INSERT_PAGE);
    let state: FullState;
    db.exec('BEGIN');
    try {
      db.exec('DELETE FROM resources; DELETE FROM meta');
      const rebuildIndexes = this.writer.dropListIndexes();
      state = await this.shared.loadAll((page) => insert.run(page));
      rebuildIndexes();
      this.loaded(state);
      db.exec('COMMIT');
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
    this.seq = state.seq;
    this.writer.replacedAll();
  }

  /**
   * Loads every row and meta value again, a replica that fell behind the log's pruned start:
   * requests read the mirror meanwhile, so the pages are inserted once all have arrived.
   */
  async reload(): Promise<void> {
    const { db, changes } = this.parts;
    const pages: string[] = [];
    const state = await this.shared.loadAll((page) => pages.push(page));
    if (state.seq < this.seq) return; // a write of ours, applied meanwhile, is newer than this read
    db.transaction(() => {
      db.exec('DELETE FROM resources; DELETE FROM meta');
      const rebuildIndexes = this.writer.dropListIndexes();
      const insert = db.prepare(INSERT_PAGE);
      for (const page of pages.splice(0)) insert.run(page);
      rebuildIndexes();
      this.loaded(state);
    })();
    this.seq = state.seq;
    this.writer.replacedAll();
    changes.publishReset();
  }

  /** The rows are in: the meta values, and the counts of the rows. */
  private loaded(state: FullState): void {
    for (const [key, value] of state.meta) this.parts.stmts.metaSet.run(key, value);
    this.parts.counts.rebuild();
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
    this.parts.changes.publish(published);
  }

  /** Writes log entries into the mirror; the resource changes they are, when someone listens. */
  private applyToMirror(fresh: readonly Change[]): ResourceChange[] {
    const { db } = this.parts;
    const listening = this.parts.changes.active;
    const out: ResourceChange[] = [];
    // Many rows at once (a seed's, back from the log): a page cache that holds the b-trees they
    // go into, instead of reading pages back from the mirror's file for each row; given back after.
    const cacheSize = fresh.length >= LARGE_APPLY ? (db.pragma('cache_size', { simple: true }) as number) : undefined;
    if (cacheSize !== undefined) db.pragma(`cache_size = ${LARGE_APPLY_CACHE_KIB}`);
    try {
      this.applyEach(fresh, listening, out);
    } finally {
      if (cacheSize !== undefined) db.pragma(`cache_size = ${cacheSize}`);
    }
    return out;
  }

  /** Writes each log entry into the mirror; with `listening`, the resource changes they are go to `out`. */
  private applyEach(fresh: readonly Change[], listening: boolean, out: ResourceChange[]): void {
    const { db, stmts, counts, meta } = this.parts;
    db.transaction(() => counts.batch(() => {
      for (const c of fresh) {
        if (c.target === 'm') {
          if (c.value === null) stmts.metaDelete.run(c.key);
          else stmts.metaSet.run(c.key, c.value);
          meta.forget(c.key);
          continue;
        }
        const before = stmts.row(c.key);
        const after = c.value === null ? undefined : (JSON.parse(c.value) as Row);
        if (after) stmts.put.run(after);
        else stmts.remove.run(c.key);
        if (before) counts.changed(before, -1);
        if (after) counts.changed(after, 1);
        // A row that moved to another parent (a put may) has two places; the epoch covers both.
        const moved = before && after && (before.parent !== after.parent || before.kind !== after.kind);
        this.writer.wrote(c.key, moved ? undefined : (after ?? before));
        if (!listening) continue;
        const origin = { actor: c.actor ?? null, time: c.time ?? '', operation: c.operation ?? null };
        const change = changeOf(c.seq, before && rowToRecord(before), after && rowToRecord(after), origin);
        if (change) out.push(change);
      }
    }))();
  }

  // ---- Writing -------------------------------------------------------------------------------

  /**
   * A batch of writes against a shared database: the writes run against the mirror (each in
   * a savepoint, as in Writer.flush()), and what they left behind is read back and rolled
   * back from the mirror, which takes it again from the log once PostgreSQL has committed it,
   * only if the log still ended where the mirror stood. No write settles before that COMMIT.
   * A write's function may so run more than once; it writes only the store, and every run but
   * the committed one is rolled back.
   */
  async commitBatch(batch: PendingWrite[]): Promise<(() => void)[]> {
    let tx: WriteTransaction | undefined;
    try {
      // Against the mirror as it stands (it caught up before each request), committed in one
      // round trip if no one else committed since: the lock is held inside PostgreSQL only,
      // never across a round trip. When someone did, the answer is what they committed: the
      // writes run again on it; after a few tries, under the lock, held across the round trips
      // (so that a busy log cannot starve a replica). A run too large for one statement (a
      // seed) goes under the lock at once, and is kept if nothing moved the log meanwhile.
      let run: BatchRun | undefined;
      for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
        run = this.runAgainstMirror(batch);
        if (!run.changes.length && !run.outbox.length) return run.settle;
        if (run.changes.length > this.shared.changesPerCommitIfAt) break;
        const missed = await this.shared.commitIfAt(run.at, run.changes, run.outbox);
        if (missed === 'committed') {
          this.apply(run.changes);
          return run.settle;
        }
        if (missed === 'gap') await this.reload();
        else this.apply(missed);
      }
      tx = await this.shared.beginWrite(this.seq);
      if (tx.missed === 'gap') await this.reload();
      else this.apply(tx.missed);
      if (run?.at !== this.seq) run = this.runAgainstMirror(batch);
      await tx.commit(run.changes, run.outbox);
      this.apply(run.changes);
      return run.settle;
    } catch (err) {
      await tx?.rollback();
      const failure = databaseUnavailable(err);
      for (const item of batch) item.reject(failure);
      return [];
    }
  }

  /** Runs the batch in a mirror transaction that is rolled back; returns the log entries of what it did. */
  private runAgainstMirror(batch: PendingWrite[]): BatchRun {
    const { db, stmts } = this.parts;
    const at = this.seq;
    const settle: (() => void)[] = [];
    const entries: Change[] = [];
    db.exec('BEGIN');
    try {
      for (const item of batch) {
        db.exec('SAVEPOINT request');
        this.touched = { uids: new Set(), meta: new Set() };
        const mark = entries.length;
        // The item's rows go into the log in the order they were first written; a change
        // the feed reports carries its row's log seq.
        const logged = new Map<string, number>();
        const origin = item.origin ?? SERVE_ORIGIN();
        const logRow = (uid: string): number => {
          let seq = logged.get(uid);
          if (seq === undefined) {
            const row = stmts.row(uid);
            seq = this.seq + entries.length + 1;
            entries.push({
              seq, target: 'r', key: uid, value: row ? JSON.stringify(row) : null, actor: origin.actor, time: origin.time, operation: origin.operation,
            });
            logged.set(uid, seq);
          }
          return seq;
        };
        try {
          const value = this.writer.runItem(item, logRow);
          for (const uid of this.touched.uids) logRow(uid);
          for (const key of this.touched.meta) {
            const row = stmts.metaGet.get(key) as { value: string } | undefined;
            entries.push({ seq: this.seq + entries.length + 1, target: 'm', key, value: row?.value ?? null });
          }
          db.exec('RELEASE request');
          settle.push(() => item.resolve(value));
        } catch (err) {
          entries.length = mark;
          db.exec('ROLLBACK TO request');
          db.exec('RELEASE request');
          this.writer.rolledBack();
          settle.push(() => item.reject(err));
        }
      }
      // The outbox rows the hooks wrote: the mirror's outbox tables hold nothing else.
      return { at, changes: entries, outbox: this.parts.sqliteOutbox.takeAll(), settle };
    } finally {
      this.touched = undefined;
      db.exec('ROLLBACK');
      this.writer.rolledBack();
    }
  }
}
