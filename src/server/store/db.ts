// Opens the SQLite database of a data dir and brings its schema up to date.
import Database from './sqlite.js';
import { chmodSync, closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { COUNTS_SCHEMA, ResourceCounts } from './counts.js';
import { SQLITE_OUTBOX_SCHEMA } from './outbox.js';

export type DB = import('better-sqlite3').Database;

/**
 * Every resource lives in one table, so that one list engine serves every kind and a
 * group's children of any kind are one indexed lookup away (`parent = ?`).
 * - `alt_key` is a per-kind secondary key: `issuer \n subject` for identities (token →
 *   identity lookup), `identityUid \n roleUid` for role bindings (duplicate check),
 *   `advisoryId` for advisories.
 * - `data` holds the kind-specific fields as JSON.
 * Timestamps are ISO strings of fixed width, so they sort as text.
 */
const migrations: (string | ((db: DB) => void))[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
   CREATE TABLE resources (
     uid TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     parent TEXT,
     name TEXT NOT NULL,
     alt_key TEXT,
     create_time TEXT NOT NULL,
     update_time TEXT NOT NULL,
     data TEXT NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX resources_kind_uid ON resources (kind, uid);
   CREATE INDEX resources_kind_name ON resources (kind, name, uid);
   CREATE INDEX resources_kind_create ON resources (kind, create_time, uid);
   CREATE INDEX resources_kind_update ON resources (kind, update_time, uid);
   CREATE INDEX resources_parent ON resources (parent, kind, name, uid);
   CREATE INDEX resources_alt ON resources (kind, alt_key);`,
  // A group's children (and the rows outside the hierarchy) in uid order (the default) and
  // by create time, read in order from an index instead of all of them sorted for each page.
  // Not by update time: each index costs bulk inserts ~25% (100k groups: 5.0 s -> 6.2 s).
  `CREATE INDEX resources_parent_uid ON resources (parent, kind, uid);
   CREATE INDEX resources_parent_create ON resources (parent, kind, create_time, uid);`,
  // The outbox: change events and their webhook deliveries, written in the write's transaction.
  SQLITE_OUTBOX_SCHEMA,
  // Only the rows that have an alt_key: every query through this index names one, and a
  // write of a kind without (a group, a repo, a role …) writes one index page fewer.
  `DROP INDEX resources_alt;
   CREATE INDEX resources_alt ON resources (kind, alt_key) WHERE alt_key IS NOT NULL;`,
  // The rows of each kind in each scope a list asks for (counts.ts), kept by the writes.
  (db) => {
    db.exec(COUNTS_SCHEMA);
    new ResourceCounts(db).rebuild();
  },
];

/**
 * The first schema version whose tables (not indexes) are this version's: a snapshot from it
 * on holds rows this database can take (a restore copies rows, table by table).
 */
export const SAME_TABLES_SINCE = 3;

/** The database files: they hold every resource and the page-token key. */
const DB_FILES = ['pctl.db', 'pctl.db-wal', 'pctl.db-shm'];

export function openDatabase(dataDir: string): DB {
  const file = join(dataDir, 'pctl.db');
  // Created 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database
  // file's mode. Files of an older pctl (0644) are tightened; the umask plays no part.
  closeSync(openSync(file, 'a', 0o600));
  for (const name of DB_FILES) makePrivate(join(dataDir, name));
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // FULL: a commit is on disk (WAL fsynced) before better-sqlite3 returns, so a
  // response is never sent for a write a crash could take back.
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/** The page cache of a replica's mirror, in SQLite's negative-KiB form: 32 MiB. */
const MIRROR_CACHE_KIB = -32_768;

/**
 * A database of the same schema for a replica's mirror of a shared database (serve
 * --database), which holds the durable copy: SQLite's private temporary database (a file
 * of its own in the temp dir, deleted when it closes; nothing synced), so that what does
 * not fit its page cache waits in the file, not in this process's memory (in memory, a
 * mirror of 100k groups held ~360 MiB).
 */
export function openMirrorDatabase(): DB {
  const db = new Database('');
  db.pragma(`cache_size = ${MIRROR_CACHE_KIB}`);
  db.pragma('synchronous = OFF');
  // A transaction's undo copy (each batch runs against the mirror and is rolled back) in memory, not a temp file.
  db.pragma('journal_mode = MEMORY');
  migrate(db);
  return db;
}

function migrate(db: DB): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`the data dir was written by a newer pctl (schema ${current}, this pctl knows ${migrations.length})`);
  }
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      const step = migrations[v]!;
      if (typeof step === 'string') db.exec(step);
      else step(db);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/** chmod 0600 where we can: a file that is missing, or someone else's that we only read (export), stays as it is. */
function makePrivate(path: string): void {
  try {
    chmodSync(path, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw err;
  }
}
