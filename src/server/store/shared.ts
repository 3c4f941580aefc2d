// What a store needs of a database that several serve processes share (serve --database):
// the log of changes a replica's mirror follows, and one write transaction at a time.
// Kept apart from postgres.ts so that a SQLite serve never loads the PostgreSQL driver.
import { ApiError, Code } from '../../api/errors.js';
import type { Outbox, OutboxEntry } from './outbox.js';

/** One entry of the log: a resource row (its JSON) or a meta value; `value` null: deleted. */
export interface Change {
  seq: number;
  /** 'r': a resource by uid, 'm': a meta value by key. */
  target: 'r' | 'm';
  key: string;
  value: string | null;
  /** A resource row's write: who made it, when and by which operation (see changes.ts WriteOrigin). */
  actor?: string | null;
  time?: string;
  operation?: string | null;
}

/** A resources row: the columns of the SQLite table (data is the JSON of the kind's fields). */
export interface StoredRow {
  uid: string;
  kind: string;
  parent: string | null;
  name: string;
  alt_key: string | null;
  create_time: string;
  update_time: string;
  data: string;
}

/** What loadAll returns besides the rows: the meta values, and the log position (for a replica's first load, and one that fell behind the log's pruned start). */
export interface FullState {
  meta: [string, string][];
  seq: number;
}

/** A write under the lock: what others committed since the mirror's position, then our changes. */
export interface WriteTransaction {
  /** Changes committed since the position given to beginWrite; 'gap' when the log no longer holds them all. */
  missed: Change[] | 'gap';
  /** Commits the changes, and the outbox entries of the same writes, in one transaction. */
  commit(changes: readonly Change[], outbox: readonly OutboxEntry[]): Promise<void>;
  rollback(): Promise<void>;
}

export interface SharedDatabase {
  /**
   * Every row and meta value, and the log position they stand at (one consistent snapshot).
   * The rows go to `take` in pages, each a JSON array of StoredRow objects (one text, not an
   * object a row), in uid order.
   */
  loadAll(take: (page: string) => void): Promise<FullState>;
  /** What was committed after `seq`, in order; 'gap' when the log no longer holds it all. */
  changesSince(seq: number): Promise<Change[] | 'gap'>;
  /**
   * In one round trip: the changes (made against a mirror at `seq`, at most
   * `changesPerCommitIfAt`) committed if the log still ends at `seq`; else, nothing written,
   * what others committed since (as changesSince), to make them again on.
   */
  commitIfAt(seq: number, changes: readonly Change[], outbox: readonly OutboxEntry[]): Promise<'committed' | Change[] | 'gap'>;
  readonly changesPerCommitIfAt: number;
  /** Waits for the write lock; then the changes others committed since `seq`. */
  beginWrite(seq: number): Promise<WriteTransaction>;
  /** The events and deliveries every replica shares. */
  readonly outbox: Outbox;
  /** The start (load, bootstrap) is over: the next replica may start. */
  started(): Promise<void>;
  close(): Promise<void>;
}

/** A database error as the API answers it: the store is unreachable or failed, not the client. */
export function databaseUnavailable(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: unknown }).code;
  return new ApiError(Code.UNAVAILABLE, `The server's database failed (${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message}); the request was not carried out and nothing was written; try again in a moment`, {
    reason: 'STORAGE_UNAVAILABLE',
    headers: { 'retry-after': '1' },
  });
}

/** The URL with its password hidden, for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

