// The SQL the store runs against its SQLite database (a data dir's file, or a replica's mirror),
// compiled once: the row and meta statements every write and read uses, and a bounded cache of
// the statements built at run time (the list engine's few shapes).
import type { Statement } from 'better-sqlite3';
import type { DB } from './db.js';
import type { StoredRow } from './shared.js';

/** A row of the resources table, as SQLite holds it (and a shared database's log carries it). */
export type Row = StoredRow;

export class Statements {
  readonly get: Statement<[string]>;
  readonly getMany: Statement<[string]>;
  readonly insert: Statement<[string, string, string | null, string, string | null, string, string, string]>;
  readonly update: Statement<[string, string | null, string, string, string]>;
  readonly remove: Statement<[string]>;
  readonly removeReturning: Statement<[string]>;
  readonly childKinds: Statement<[string]>;
  readonly byAltKey: Statement<[string, string]>;
  readonly byAltKeyFirstPart: Statement<[string, string, string, number]>;
  readonly metaGet: Statement<[string]>;
  readonly metaSet: Statement<[string, string]>;
  readonly children: Statement<[string, string]>;
  readonly roots: Statement<[string]>;
  readonly ofKindByAltKey: Statement<[string]>;
  readonly byAltKeySuffix: Statement<[string, string]>;
  readonly siblingNamed: Statement<[string, string, string, string]>;
  readonly put: Statement<[Row]>;
  readonly metaDelete: Statement<[string]>;
  readonly metaRange: Statement<[string, string, number]>;
  private readonly prepared = new Map<string, Statement>();

  constructor(readonly db: DB) {
    this.get = db.prepare('SELECT * FROM resources WHERE uid = ?');
    this.getMany = db.prepare('SELECT * FROM resources WHERE uid IN (SELECT value FROM json_each(?))');
    this.insert = db.prepare('INSERT INTO resources (uid, kind, parent, name, alt_key, create_time, update_time, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.update = db.prepare('UPDATE resources SET name = ?, alt_key = ?, update_time = ?, data = ? WHERE uid = ?');
    this.remove = db.prepare('DELETE FROM resources WHERE uid = ?');
    this.removeReturning = db.prepare('DELETE FROM resources WHERE uid = ? RETURNING uid, kind, parent');
    this.childKinds = db.prepare('SELECT kind, count(*) AS n FROM resources WHERE parent = ? GROUP BY kind');
    this.byAltKey = db.prepare('SELECT * FROM resources WHERE kind = ? AND alt_key = ?');
    // '\v' is the character after '\n': the range holds exactly the keys starting "<first>\n".
    this.byAltKeyFirstPart = db.prepare('SELECT * FROM resources WHERE kind = ? AND alt_key > ? AND alt_key < ? ORDER BY name, uid LIMIT ?');
    this.metaGet = db.prepare('SELECT value FROM meta WHERE key = ?');
    this.metaSet = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    this.children = db.prepare('SELECT * FROM resources WHERE parent = ? AND kind = ? ORDER BY name, uid');
    this.roots = db.prepare('SELECT * FROM resources WHERE kind = ? AND parent IS NULL ORDER BY name, uid');
    this.ofKindByAltKey = db.prepare('SELECT * FROM resources WHERE kind = ? ORDER BY alt_key, name, uid');
    this.byAltKeySuffix = db.prepare("SELECT count(*) AS n FROM resources WHERE kind = ? AND alt_key LIKE ? ESCAPE '!'");
    this.siblingNamed = db.prepare('SELECT * FROM resources WHERE parent = ? AND kind = ? AND name = ? AND uid <> ? LIMIT 1');
    this.put = db.prepare(
      'INSERT INTO resources (uid, kind, parent, name, alt_key, create_time, update_time, data) VALUES (@uid, @kind, @parent, @name, @alt_key, @create_time, @update_time, @data) ' +
        'ON CONFLICT (uid) DO UPDATE SET kind = excluded.kind, parent = excluded.parent, name = excluded.name, alt_key = excluded.alt_key, ' +
        'create_time = excluded.create_time, update_time = excluded.update_time, data = excluded.data',
    );
    this.metaDelete = db.prepare('DELETE FROM meta WHERE key = ?');
    this.metaRange = db.prepare('SELECT key, value FROM meta WHERE key > ? AND key < ? ORDER BY key LIMIT ?');
  }

  /** The row of a uid, read from the database now (RecordCache keeps what it reads). */
  row(uid: string): Row | undefined {
    return this.get.get(uid) as Row | undefined;
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
}
