// Storage failures as the API answers them. SQLite reports a full disk, an I/O error, a
// read-only or locked database as a SqliteError with a `code`; none of them is the client's
// fault or a bug of ours, and the request left nothing behind (its transaction was rolled
// back, see Store.write), so the answer is a 503 that says so, not a bare "Internal error".
import { ApiError, Code } from '../../api/errors.js';
import Database from './sqlite.js';

interface Failure { reason: string; what: string; code: number; retryAfterSeconds?: number }

/** By SQLite's primary result code (`SQLITE_IOERR_WRITE` → `SQLITE_IOERR`). */
const FAILURES: Record<string, Failure> = {
  SQLITE_FULL: { reason: 'STORAGE_FULL', what: 'is full (no space left on the disk that holds the data dir)', code: Code.UNAVAILABLE },
  SQLITE_IOERR: { reason: 'STORAGE_IO_ERROR', what: 'failed with an I/O error', code: Code.UNAVAILABLE },
  SQLITE_READONLY: { reason: 'STORAGE_READ_ONLY', what: 'cannot be written (the database is read-only)', code: Code.UNAVAILABLE },
  SQLITE_CANTOPEN: { reason: 'STORAGE_IO_ERROR', what: 'cannot open a file it needs', code: Code.UNAVAILABLE },
  SQLITE_NOMEM: { reason: 'STORAGE_IO_ERROR', what: 'ran out of memory', code: Code.UNAVAILABLE },
  SQLITE_BUSY: { reason: 'STORAGE_BUSY', what: 'is locked by another process', code: Code.UNAVAILABLE, retryAfterSeconds: 1 },
  SQLITE_LOCKED: { reason: 'STORAGE_BUSY', what: 'is locked', code: Code.UNAVAILABLE, retryAfterSeconds: 1 },
  SQLITE_PROTOCOL: { reason: 'STORAGE_BUSY', what: 'is locked', code: Code.UNAVAILABLE, retryAfterSeconds: 1 },
  SQLITE_CORRUPT: { reason: 'STORAGE_CORRUPT', what: 'is corrupt', code: Code.DATA_LOSS },
  SQLITE_NOTADB: { reason: 'STORAGE_CORRUPT', what: 'is corrupt (pctl.db is not a database)', code: Code.DATA_LOSS },
};

/** The SQLite result code of a storage failure (`SQLITE_FULL`, `SQLITE_IOERR_FSYNC` …), or undefined for any other error. */
export function storageErrorCode(err: unknown): string | undefined {
  if (!(err instanceof Database.SqliteError)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  return FAILURES[primaryCode(code)] ? code : undefined;
}

function primaryCode(code: string): string {
  return /^SQLITE_[A-Z]+/.exec(code)?.[0] ?? code;
}

/** What failed, in words (`is full (no space …)`), for messages outside a request; undefined when `err` is no storage failure. */
export function storageProblem(err: unknown): string | undefined {
  const sqliteCode = storageErrorCode(err);
  return sqliteCode ? `${FAILURES[primaryCode(sqliteCode)]!.what} (${sqliteCode})` : undefined;
}

/** The API error for a storage failure, or undefined when `err` is not one. */
export function storageFailure(err: unknown): ApiError | undefined {
  const sqliteCode = storageErrorCode(err);
  if (!sqliteCode) return undefined;
  const f = FAILURES[primaryCode(sqliteCode)]!;
  const retry = f.retryAfterSeconds ? '; try again in a moment' : '';
  return new ApiError(f.code, `The server's storage ${f.what} (${sqliteCode}); the request was not carried out and nothing was written${retry}`, {
    reason: f.reason,
    metadata: { sqliteCode },
    ...(f.retryAfterSeconds ? { headers: { 'retry-after': String(f.retryAfterSeconds) } } : {}),
  });
}
