// Snapshots of a SQLite database: a consistent copy taken while it is served, and the rows of
// such a copy put in place of the live ones (restore), checked to be pctl's, of this schema.
import { DERIVED_TABLES } from './counts.js';
import { SAME_TABLES_SINCE, type DB } from './db.js';
import Database from './sqlite.js';

/** A database that cannot replace this one's rows (replaceWith): not pctl's, or another schema version. */
export class IncompatibleDatabaseError extends Error {
  constructor(readonly reason: string) {
    super(`cannot restore from this database: ${reason}`);
    this.name = 'IncompatibleDatabaseError';
  }
}

/** Not a database (SQLITE_NOTADB), or one without pctl's tables. */
function unreadable(err: unknown): IncompatibleDatabaseError {
  const code = (err as { code?: unknown }).code;
  return new IncompatibleDatabaseError(`it is not a pctl database (${typeof code === 'string' && code !== 'SQLITE_ERROR' ? code : (err as Error).message})`);
}

/**
 * A consistent copy of the database in `file`, taken while it is served: SQLite's online
 * backup, which carries writes this connection makes during the copy into it. The copy is
 * one standalone file (a rollback journal, not WAL: no -wal or -shm beside it).
 */
export async function saveCopy(db: DB, file: string): Promise<void> {
  await db.backup(file);
  const copy = new Database(file);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/**
 * Attaches `file` as `schema`, checks it, and hands `write` the step that replaces every
 * table's rows with its rows (but the meta rows named in `keepMeta`, and the tables derived
 * from the rows, which the caller rebuilds); `write` runs that step
 * in a write of its own (Store.replaceWith). Detached afterwards, whatever happened.
 */
export async function replaceRows(
  db: DB, schema: string, file: string, keepMeta: readonly string[], write: (copyRows: () => void) => Promise<void>,
): Promise<void> {
  // ATTACH cannot run inside a transaction. None is open between flushes (each runs from
  // BEGIN to COMMIT without yielding); inside one, this call is a bug of its caller.
  if (db.inTransaction) throw new Error('replaceWith() cannot run inside a transaction or a write');
  try {
    db.prepare(`ATTACH DATABASE ? AS ${schema}`).run(file);
  } catch (err) {
    throw unreadable(err);
  }
  try {
    checkSameSchema(db, schema);
    const tables = (db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'").all() as { name: string }[])
      .map((t) => t.name)
      // Derived from the rows (and absent from older snapshots): the write rebuilds them.
      .filter((name) => !DERIVED_TABLES.includes(name));
    const kept = keepMeta.map(() => '?').join(', ');
    await write(() => {
      for (const table of tables) {
        const only = table === 'meta' ? ` WHERE key NOT IN (${kept})` : '';
        const args = table === 'meta' ? keepMeta : [];
        db.prepare(`DELETE FROM main."${table}"${only}`).run(...args);
        db.prepare(`INSERT INTO main."${table}" SELECT * FROM ${schema}."${table}"${only}`).run(...args);
      }
    });
  } finally {
    // Closed meanwhile (serve stopping): the attachment went with the connection.
    if (db.open) db.exec(`DETACH DATABASE ${schema}`);
  }
}

/** An attached database is a pctl database with this schema's tables, bootstrapped; IncompatibleDatabaseError otherwise. */
function checkSameSchema(db: DB, schema: string): void {
  const ours = db.pragma('main.user_version', { simple: true }) as number;
  let theirs: number;
  let bootstrapped: unknown;
  try {
    theirs = db.pragma(`${schema}.user_version`, { simple: true }) as number;
    bootstrapped = db.prepare(`SELECT value FROM ${schema}.meta WHERE key = 'bootstrapped'`).get();
  } catch (err) {
    throw unreadable(err);
  }
  if (theirs > ours || theirs < SAME_TABLES_SINCE) throw new IncompatibleDatabaseError(`it has schema version ${theirs}, this pctl ${ours}`);
  if (!bootstrapped) throw new IncompatibleDatabaseError('it holds no bootstrapped data dir');
}
