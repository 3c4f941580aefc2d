// The PostgreSQL home of serve's data (`serve --database postgres://…`), shared by every
// replica that names the same database (and schema). PostgreSQL holds the truth: the
// resources and meta tables, and `changes`, an ordered log of what each write left behind.
// Each replica answers from an in-memory mirror of those tables (store.ts), brought up to
// the log's end before every request and inside every write, so a replica reads what any
// other has acknowledged, and every cache of its own moves with the log.
//
// Writes are serialized across replicas by one table lock (LOCK TABLE changes IN EXCLUSIVE
// MODE, held to COMMIT), as SQLite serializes writers: a write runs against a mirror that is
// up to date under that lock, so every rule it checks (a parent that exists, a unique name)
// still holds when it commits, and no two replicas can interleave. Readers never wait on it.
import pg from 'pg';
import { redactDatabaseUrl, type Change, type FullState, type SharedDatabase, type StoredRow, type WriteTransaction } from './shared.js';

/** How many log entries are kept: a replica further behind than this loads everything again. */
const LOG_KEPT = 10_000;
const PRUNE_EVERY = 1_000;

// A resource is its row's JSON text (the mirror's columns), not columns of its own: the
// database is only read whole (loadAll), the mirror answers every query, and JSON text keeps
// any string the API accepts, where a TEXT column refuses U+0000.
const MIGRATIONS: string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE resources (uid TEXT PRIMARY KEY, row TEXT NOT NULL);
   CREATE TABLE changes (seq BIGINT PRIMARY KEY, target CHAR(1) NOT NULL, key TEXT NOT NULL, value TEXT);`,
  // Who wrote a row, when, by which operation: every replica's change feed reports them.
  `ALTER TABLE changes ADD COLUMN actor TEXT, ADD COLUMN time TEXT, ADD COLUMN operation TEXT;`,
];

export class PostgresDatabase implements SharedDatabase {
  private readonly pool: pg.Pool;
  private startLock: pg.PoolClient | undefined;

  private constructor(url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000 });
    // An idle client losing its connection (the server restarted) must not take serve down.
    this.pool.on('error', () => {});
  }

  /**
   * Connects, takes the start lock (a session advisory lock named after the schema, so that
   * two replicas starting at once never both migrate or bootstrap) and migrates. The caller
   * loads, bootstraps if the data is empty, then calls started() to let the next replica in.
   */
  static async open(url: string): Promise<PostgresDatabase> {
    const db = new PostgresDatabase(url);
    try {
      const client = await db.pool.connect();
      db.startLock = client;
      await client.query("SELECT pg_advisory_lock(hashtext('pctl serve ' || current_schema()))");
      await db.migrate(client);
      return db;
    } catch (err) {
      await db.close();
      throw new Error(`cannot use the database ${redactDatabaseUrl(url)}: ${(err as Error).message}`);
    }
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

  /** Every row and meta value, and the log position they stand at (one consistent snapshot). */
  async loadAll(): Promise<FullState> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const rows = (await client.query<{ row: string }>('SELECT row FROM resources')).rows.map((r) => JSON.parse(r.row) as StoredRow);
      const meta = (await client.query<{ key: string; value: string }>('SELECT key, value FROM meta')).rows.map((r) => [r.key, r.value] as [string, string]);
      const seq = Number((await client.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM changes')).rows[0]?.seq ?? 0);
      await client.query('COMMIT');
      return { rows, meta, seq };
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
        commit: async (changes) => {
          try {
            if (changes.length) await client.query({ name: 'pctl-write-changes', text: WRITE_CHANGES, values: writeChangesValues(changes) });
            await client.query('COMMIT');
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

  async close(): Promise<void> {
    if (this.startLock) this.startLock.release();
    this.startLock = undefined;
    await this.pool.end().catch(() => {});
  }
}

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

/** The changes into the tables and the log, in one statement (see writeChangesValues). */
const WRITE_CHANGES = `WITH put AS (
    INSERT INTO resources SELECT * FROM json_populate_recordset(NULL::resources, $1::json)
    ON CONFLICT (uid) DO UPDATE SET row = excluded.row
  ), removed AS (
    DELETE FROM resources WHERE uid IN (SELECT json_array_elements_text($2::json))
  ), meta_put AS (
    INSERT INTO meta SELECT * FROM json_populate_recordset(NULL::meta, $3::json)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value
  ), meta_removed AS (
    DELETE FROM meta WHERE key IN (SELECT json_array_elements_text($4::json))
  ), pruned AS (
    DELETE FROM changes WHERE seq <= $6
  )
  INSERT INTO changes (seq, target, key, value, actor, time, operation)
  SELECT seq, target, key, value, actor, time, operation FROM json_populate_recordset(NULL::changes, $5::json)`;

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
  const last = changes[changes.length - 1]!.seq;
  const prune = Math.floor(last / PRUNE_EVERY) !== Math.floor((changes[0]!.seq - 1) / PRUNE_EVERY) ? last - LOG_KEPT : 0;
  return [JSON.stringify(rows), JSON.stringify(gone), JSON.stringify(meta), JSON.stringify(metaGone), JSON.stringify(changes), prune];
}
