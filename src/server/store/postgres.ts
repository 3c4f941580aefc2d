// The PostgreSQL home of serve's data (`serve --database postgres://…`), shared by every
// replica that names the same database (and schema). PostgreSQL holds the truth: the
// resources and meta tables, and `changes`, an ordered log of what each write left behind.
// Each replica answers from an in-memory mirror of those tables (store.ts), brought up to
// the log's end before every request and inside every write, so a replica reads what any
// other has acknowledged, and every cache of its own moves with the log.
//
// Writes are serialized across replicas by one table lock (LOCK TABLE changes IN EXCLUSIVE
// MODE, held to COMMIT), as SQLite serializes writers: a write commits only against the
// state its mirror stood at, so every rule it checks (a parent that exists, a unique name)
// still holds when it commits, and no two replicas can interleave. Most often the lock is
// held inside PostgreSQL only (commitIfAt: one query that commits if the log has not moved);
// beginWrite holds it across round trips. Readers never wait on it.
import pg from 'pg';
import { DELIVERY_SELECT, HEAD, delivery, feedEvent, type Delivery, type DeliveryFilter, type DeliveryRow, type EventRow, type FeedEvent, type Outbox, type OutboxEntry, type Settlement } from './outbox.js';
import { redactDatabaseUrl, type Change, type FullState, type SharedDatabase, type WriteTransaction } from './shared.js';

/** How many log entries are kept: a replica further behind than this loads everything again. */
const LOG_KEPT = 10_000;
const PRUNE_EVERY = 1_000;
/** Log entries written by one statement of a write (a write of more runs several, in its transaction). */
const CHANGES_PER_STATEMENT = 5_000;
/** A write of this many changes or more is a bulk load: the tables are analyzed after it. */
const ANALYZE_AFTER = 10_000;

// A resource is its row's JSON text (the mirror's columns), not columns of its own: the
// database is only read whole (loadAll), the mirror answers every query, and JSON text keeps
// any string the API accepts, where a TEXT column refuses U+0000.
const MIGRATIONS: string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE resources (uid TEXT PRIMARY KEY, row TEXT NOT NULL);
   CREATE TABLE changes (seq BIGINT PRIMARY KEY, target CHAR(1) NOT NULL, key TEXT NOT NULL, value TEXT);`,
  // Who wrote a row, when, by which operation: every replica's change feed reports them.
  `ALTER TABLE changes ADD COLUMN actor TEXT, ADD COLUMN time TEXT, ADD COLUMN operation TEXT;`,
  // The outbox (see outbox.ts). Event seqs are drawn under the write lock, so they follow commit order.
  `CREATE TABLE events (
     seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL, type TEXT NOT NULL, source TEXT NOT NULL, subject TEXT NOT NULL,
     grp TEXT NOT NULL, event_time TEXT NOT NULL, body_type TEXT NOT NULL, data TEXT NOT NULL
   );
   CREATE TABLE deliveries (
     id BIGSERIAL PRIMARY KEY, event_seq BIGINT NOT NULL, subscription TEXT NOT NULL, sink TEXT NOT NULL, state TEXT NOT NULL,
     attempts INT NOT NULL DEFAULT 0, next_attempt BIGINT NOT NULL, lease_until BIGINT NOT NULL DEFAULT 0,
     last_status INT, last_error TEXT, update_time TEXT NOT NULL
   );
   CREATE INDEX deliveries_queue ON deliveries (subscription, state, id);
   CREATE INDEX deliveries_due ON deliveries (state, next_attempt);`,
];

export class PostgresDatabase implements SharedDatabase {
  private readonly pool: pg.Pool;
  private startLock: pg.PoolClient | undefined;
  readonly outbox: Outbox;
  readonly changesPerCommitIfAt = CHANGES_PER_STATEMENT;

  private constructor(url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000 });
    this.outbox = new PostgresOutbox(this.pool);
    // An idle client losing its connection (the server restarted) must not take serve down.
    this.pool.on('error', () => {});
  }

  /**
   * Connects, takes the start lock (a session advisory lock named after the schema, so that
   * two replicas starting at once never both migrate or bootstrap) and migrates; on a database
   * already migrated and bootstrapped, takes none. The caller
   * loads, bootstraps if the data is empty, then calls started() to let the next replica in.
   */
  static async open(url: string): Promise<PostgresDatabase> {
    const db = new PostgresDatabase(url);
    try {
      const client = await db.pool.connect();
      // A database of this schema version, bootstrapped: nothing to migrate or bootstrap, so
      // no lock; replicas started together load at once instead of one after another.
      if (await db.readyWithoutStart(client)) {
        client.release();
        return db;
      }
      db.startLock = client;
      await client.query("SELECT pg_advisory_lock(hashtext('pctl serve ' || current_schema()))");
      await db.migrate(client);
      return db;
    } catch (err) {
      await db.close();
      throw new Error(`cannot use the database ${redactDatabaseUrl(url)}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Whether the database is at this pctl's schema version and bootstrapped (read without the start lock). */
  private async readyWithoutStart(client: pg.PoolClient): Promise<boolean> {
    const present = await client.query<{ present: boolean }>("SELECT to_regclass('pctl_schema') IS NOT NULL AS present");
    if (!present.rows[0]?.present) return false;
    const res = await client.query<{ version: number }>('SELECT version FROM pctl_schema');
    if ((res.rows[0]?.version ?? 0) !== MIGRATIONS.length) return false;
    return ((await client.query("SELECT 1 FROM meta WHERE key = 'bootstrapped'")).rowCount ?? 0) > 0;
  }

  private async migrate(client: pg.PoolClient): Promise<void> {
    await client.query('CREATE TABLE IF NOT EXISTS pctl_schema (version INT NOT NULL)');
    const res = await client.query<{ version: number }>('SELECT version FROM pctl_schema');
    const current = res.rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) throw new Error(`it was written by a newer pctl (schema ${current}, this pctl knows ${MIGRATIONS.length})`);
    for (let v = current; v < MIGRATIONS.length; v++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[v]!);
        await client.query(v === 0 ? 'INSERT INTO pctl_schema (version) VALUES (1)' : `UPDATE pctl_schema SET version = ${v + 1}`);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
  }

  /** The start is over (loaded, bootstrapped): the next replica may start. */
  async started(): Promise<void> {
    const client = this.startLock;
    this.startLock = undefined;
    if (!client) return;
    try {
      await client.query("SELECT pg_advisory_unlock(hashtext('pctl serve ' || current_schema()))");
    } finally {
      client.release();
    }
  }

  /** Every row (to `take`, a page at a time) and meta value, and the log position they stand at (one consistent snapshot). */
  async loadAll(take: (page: string) => void): Promise<FullState> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // In pages by uid, each one JSON array text made by PostgreSQL: no object a row in
      // this process (100k rows as objects were ~200 MiB of heap), and the mirror inserts a
      // page in one statement, in uid order, its primary key's order.
      for (let after = ''; ;) {
        const page = (await client.query<{ last: string | null; rows: string | null }>({ name: 'pctl-load-page', text: LOAD_PAGE, values: [after, LOAD_PAGE_ROWS] })).rows[0];
        if (!page?.last || !page.rows) break;
        take(page.rows);
        after = page.last;
      }
      const meta = (await client.query<{ key: string; value: string }>('SELECT key, value FROM meta')).rows.map((r) => [r.key, r.value] as [string, string]);
      const seq = Number((await client.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM changes')).rows[0]?.seq ?? 0);
      await client.query('COMMIT');
      return { meta, seq };
    } finally {
      client.release();
    }
  }

  /** What was committed after `seq`, in order; 'gap' when the log was pruned past it. */
  async changesSince(seq: number): Promise<Change[] | 'gap'> {
    return readChanges(this.pool, seq);
  }

  /**
   * Begins the write transaction: waits for the write lock, then reads what others committed
   * since `seq`, which the mirror applies before running the writes.
   */
  async beginWrite(seq: number): Promise<WriteTransaction> {
    const client = await this.pool.connect();
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      client.release(err);
    };
    try {
      // Round trips are what a write waits on: BEGIN, the lock and the catch-up go as one
      // simple query; then the changes (a prepared statement: planning it each time cost
      // more, ~270 µs, than the round trip COMMIT takes on its own).
      const results = (await client.query(`BEGIN; LOCK TABLE changes IN EXCLUSIVE MODE; ${CHANGES_SINCE.replace('$1', String(Math.trunc(seq)))}`)) as unknown as pg.QueryResult[];
      const missed = changesFrom(results[results.length - 1]!.rows as ChangeRow[], seq);
      return {
        missed,
        commit: async (changes, outbox) => {
          try {
            if (changes.length <= CHANGES_PER_STATEMENT) {
              // The write and its COMMIT in one round trip: the lock is held one round trip less.
              await client.query(`${inlined(writeChangesSql(outbox.length > 0, false), [...writeChangesValues(changes), ...outboxValues(outbox)])}; COMMIT`);
              finish();
              return;
            }
            // In slices of the same transaction: a seed's million rows in one statement were
            // one JSON text past what a JavaScript string can hold.
            for (let at = 0; at < changes.length || (at === 0 && outbox.length); at += CHANGES_PER_STATEMENT) {
              const slice = changes.slice(at, at + CHANGES_PER_STATEMENT);
              if (at === 0 && outbox.length) {
                // The events go with the rows they describe, in the same transaction: both or neither.
                await client.query({ name: 'pctl-write-changes-events', text: WRITE_CHANGES_AND_EVENTS, values: [...writeChangesValues(slice), ...outboxValues(outbox)] });
              } else {
                await client.query({ name: 'pctl-write-changes', text: WRITE_CHANGES, values: writeChangesValues(slice) });
              }
            }
            await client.query('COMMIT');
            // A bulk load (a seed) changes the tables' sizes by orders of magnitude: until the
            // planner's statistics follow, it plans for the empty tables (a replica answered ~40x slower).
            if (changes.length >= ANALYZE_AFTER) await client.query('ANALYZE resources, changes, meta');
            finish();
          } catch (err) {
            await client.query('ROLLBACK').catch(() => {});
            finish(err as Error);
            throw err;
          }
        },
        rollback: async () => {
          if (done) return;
          await client.query('ROLLBACK').catch(() => {});
          finish();
        },
      };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      finish(err as Error);
      throw err;
    }
  }

  /**
   * One round trip, the write lock held only inside PostgreSQL: takes the lock and commits
   * the changes (and their outbox entries) if the log still ends at `seq`, the position of
   * the mirror they were made against ('committed'). Else nothing is written, and the answer
   * is what others committed since `seq` (as changesSince), to make the changes again on.
   */
  async commitIfAt(seq: number, changes: readonly Change[], outbox: readonly OutboxEntry[]): Promise<'committed' | Change[] | 'gap'> {
    const write = inlined(writeChangesSql(outbox.length > 0, true), [...writeChangesValues(changes), ...outboxValues(outbox), seq]);
    // Outside BEGIN … COMMIT, the statements of one query are one transaction, which
    // commits when they end (the lock with it), and rolls back (the lock too) on an error.
    // Under the lock, the log past `seq` is read before the write: nothing when it goes in.
    const results = (await this.pool.query(`LOCK TABLE changes IN EXCLUSIVE MODE; ${CHANGES_SINCE.replace('$1', String(Math.trunc(seq)))}; ${write}`)) as unknown as pg.QueryResult[];
    const missed = changesFrom(results[1]!.rows as ChangeRow[], seq);
    if (missed === 'gap' || missed.length) return missed;
    if ((results[2]!.rowCount ?? 0) !== changes.length) throw new Error(`the log took ${results[2]!.rowCount} of ${changes.length} changes`);
    return 'committed';
  }

  async close(): Promise<void> {
    if (this.startLock) this.startLock.release();
    this.startLock = undefined;
    await this.pool.end().catch(() => {});
  }
}

/** Rows a page of loadAll reads. */
const LOAD_PAGE_ROWS = 20_000;
const LOAD_PAGE = `SELECT max(uid) AS last, '[' || string_agg(row, ',' ORDER BY uid) || ']' AS rows
  FROM (SELECT uid, row FROM resources WHERE uid > $1 ORDER BY uid LIMIT $2) page`;

const CHANGES_SINCE = 'SELECT seq, target, key, value, actor, time, operation FROM changes WHERE seq > $1 ORDER BY seq';

interface ChangeRow { seq: string; target: 'r' | 'm'; key: string; value: string | null; actor: string | null; time: string | null; operation: string | null }

async function readChanges(q: pg.Pool | pg.PoolClient, seq: number): Promise<Change[] | 'gap'> {
  // Named: prepared once per connection, not planned again on every request.
  return changesFrom((await q.query<ChangeRow>({ name: 'pctl-changes-since', text: CHANGES_SINCE, values: [seq] })).rows, seq);
}

function changesFrom(rows: readonly ChangeRow[], seq: number): Change[] | 'gap' {
  const changes = rows.map((r): Change => ({
    seq: Number(r.seq), target: r.target, key: r.key, value: r.value,
    ...(r.target === 'r' ? { actor: r.actor, time: r.time ?? '', operation: r.operation } : {}),
  }));
  // Entries are numbered without gaps under the write lock: a first one past seq + 1 means pruned ones.
  if (changes.length && changes[0]!.seq !== seq + 1) return 'gap';
  return changes;
}

/**
 * The changes into the tables and the log, in one statement (see writeChangesValues); with
 * `events`, the outbox entries of the same writes too ($7, $8: see outboxValues); with
 * `guarded`, only if the log still ends at $9 (else it writes nothing: someone else committed
 * since the mirror the changes were made against stood there).
 */
function writeChangesSql(events: boolean, guarded: boolean): string {
  const when = guarded ? ' AND (SELECT ok FROM guard)' : '';
  const where = guarded ? ' WHERE (SELECT ok FROM guard)' : '';
  return `WITH ${guarded ? 'guard AS (SELECT coalesce(max(seq), 0) = $9 AS ok FROM changes), ' : ''}${events ? `input AS (
    SELECT * FROM json_to_recordset($7::json) AS x(n INT, id TEXT, type TEXT, source TEXT, subject TEXT, grp TEXT, event_time TEXT, body_type TEXT, data TEXT, subscriptions JSON)${where}
  ), ev AS (
    INSERT INTO events (id, type, source, subject, grp, event_time, body_type, data)
    SELECT id, type, source, subject, grp, event_time, body_type, data FROM input ORDER BY n RETURNING seq, id
  ), dl AS (
    INSERT INTO deliveries (event_seq, subscription, sink, state, next_attempt, update_time)
    SELECT ev.seq, s.uid, s.sink, 'pending', $8, i.event_time FROM ev JOIN input i ON i.id = ev.id
    CROSS JOIN LATERAL json_to_recordset(i.subscriptions) AS s(uid TEXT, sink TEXT)
  ), ` : ''}put AS (
    INSERT INTO resources SELECT * FROM json_populate_recordset(NULL::resources, $1::json)${where}
    ON CONFLICT (uid) DO UPDATE SET row = excluded.row
  ), removed AS (
    DELETE FROM resources WHERE uid IN (SELECT json_array_elements_text($2::json))${when}
  ), meta_put AS (
    INSERT INTO meta SELECT * FROM json_populate_recordset(NULL::meta, $3::json)${where}
    ON CONFLICT (key) DO UPDATE SET value = excluded.value
  ), meta_removed AS (
    DELETE FROM meta WHERE key IN (SELECT json_array_elements_text($4::json))${when}
  ), pruned AS (
    DELETE FROM changes WHERE seq <= $6${when}
  )
  INSERT INTO changes (seq, target, key, value, actor, time, operation)
  SELECT seq, target, key, value, actor, time, operation FROM json_populate_recordset(NULL::changes, $5::json)${where}`;
}

const WRITE_CHANGES = writeChangesSql(false, false);
const WRITE_CHANGES_AND_EVENTS = writeChangesSql(true, false);

/**
 * A statement with its parameters written in as literals, so that it can go in one simple
 * query with others (BEGIN …; COMMIT): one round trip instead of one per statement.
 */
function inlined(sql: string, values: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const v = values[Number(n) - 1];
    return typeof v === 'number' ? String(Math.trunc(v)) : pg.escapeLiteral(String(v));
  });
}

function writeChangesValues(changes: readonly Change[]): unknown[] {
  const rows: { uid: string; row: string }[] = [];
  const gone: string[] = [];
  const meta: { key: string; value: string }[] = [];
  const metaGone: string[] = [];
  for (const c of changes) {
    if (c.target === 'r') {
      if (c.value === null) gone.push(c.key);
      else rows.push({ uid: c.key, row: c.value });
    } else if (c.value === null) metaGone.push(c.key);
    else meta.push({ key: c.key, value: c.value });
  }
  const last = changes[changes.length - 1]?.seq ?? 0;
  const prune = changes.length && Math.floor(last / PRUNE_EVERY) !== Math.floor((changes[0]!.seq - 1) / PRUNE_EVERY) ? last - LOG_KEPT : 0;
  return [JSON.stringify(rows), JSON.stringify(gone), JSON.stringify(meta), JSON.stringify(metaGone), JSON.stringify(changes), prune];
}

function outboxValues(entries: readonly OutboxEntry[]): unknown[] {
  const rows = entries.map(({ event: e, subscriptions }, n) => ({
    n, id: e.id, type: e.type, source: e.source, subject: e.subject, grp: e.group, event_time: e.time, body_type: e.bodyType, data: e.data, subscriptions,
  }));
  return [JSON.stringify(rows), Date.now()];
}

/**
 * The outbox every replica shares. A due delivery is claimed with FOR UPDATE SKIP LOCKED and a
 * lease: one replica sends it; should that replica die, another takes it once the lease ends.
 */
class PostgresOutbox implements Outbox {
  constructor(private readonly pool: pg.Pool) {}

  async eventsSince(seq: number, limit: number): Promise<FeedEvent[]> {
    return (await this.pool.query<EventRow>('SELECT * FROM events WHERE seq > $1 ORDER BY seq LIMIT $2', [seq, limit])).rows.map(feedEvent);
  }

  async lastSeq(): Promise<number> {
    return Number((await this.pool.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM events')).rows[0]?.seq ?? 0);
  }

  async claim(now: number, limit: number, leaseMs: number): Promise<{ delivery: Delivery; event: FeedEvent }[]> {
    const claimed = await this.pool.query<{ id: string }>(
      `UPDATE deliveries SET lease_until = $2 WHERE id IN (
         SELECT d.id FROM deliveries d
         WHERE ${HEAD} AND d.next_attempt <= $1 AND d.lease_until <= $1
         ORDER BY d.id LIMIT $3 FOR UPDATE SKIP LOCKED
       ) RETURNING id`,
      [now, now + leaseMs, limit],
    );
    if (!claimed.rows.length) return [];
    const ids = claimed.rows.map((r) => Number(r.id));
    const rows = (await this.pool.query<DeliveryRow>(`${DELIVERY_SELECT} WHERE d.id = ANY($1::bigint[]) ORDER BY d.id`, [ids])).rows;
    const events = new Map((await this.pool.query<EventRow>('SELECT * FROM events WHERE seq = ANY($1::bigint[])', [rows.map((r) => r.event_seq)])).rows.map((r) => [Number(r.seq), feedEvent(r)]));
    return rows.flatMap((r) => {
      const event = events.get(Number(r.event_seq));
      return event ? [{ delivery: delivery(r), event }] : [];
    });
  }

  async settle(id: number, o: Settlement): Promise<void> {
    await this.pool.query(
      'UPDATE deliveries SET state = $1, attempts = $2, next_attempt = $3, lease_until = 0, last_status = $4, last_error = $5, update_time = $6 WHERE id = $7',
      [o.state, o.attempts, o.nextAttempt, o.lastStatus, o.lastError, o.updateTime, id],
    );
  }

  async deliveries(f: DeliveryFilter): Promise<Delivery[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (f.id !== undefined) { args.push(f.id); where.push(`d.id = $${args.length}`); }
    if (f.subscription) { args.push(f.subscription); where.push(`d.subscription = $${args.length}`); }
    if (f.state) { args.push(f.state); where.push(`d.state = $${args.length}`); }
    args.push(f.limit);
    const sql = `${DELIVERY_SELECT}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY d.id DESC LIMIT $${args.length}`;
    return (await this.pool.query<DeliveryRow>(sql, args)).rows.map(delivery);
  }

  async redeliver(id: number, now: number, time: string): Promise<boolean> {
    const res = await this.pool.query("UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt = $1, lease_until = 0, update_time = $2 WHERE id = $3", [now, time, id]);
    return (res.rowCount ?? 0) > 0;
  }

  async nextDue(): Promise<number | undefined> {
    const t = (await this.pool.query<{ t: string | null }>(`SELECT min(greatest(next_attempt, lease_until)) AS t FROM deliveries d WHERE ${HEAD}`)).rows[0]?.t;
    return t === null || t === undefined ? undefined : Number(t);
  }

  async prune(keep: number): Promise<void> {
    await this.pool.query("DELETE FROM deliveries WHERE state <> 'pending' AND id <= (SELECT max(id) FROM deliveries) - $1", [keep]);
    await this.pool.query('DELETE FROM events e WHERE seq <= (SELECT max(seq) FROM events) - $1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_seq = e.seq)', [keep]);
  }
}
