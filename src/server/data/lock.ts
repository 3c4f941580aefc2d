// One serve per data dir, held by an OS lock: DIR/serve.lock is a small SQLite database on
// which serve keeps an exclusive transaction open for as long as it runs. The kernel drops
// the lock when the process ends, however it ends (kill -9, a crash), so a restart right
// after one works at once, and no PID check can be fooled by a dead or reused PID.
// DIR/serve.pid only names the holder, for the message of a refused second serve.
import { chmodSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from '../store/sqlite.js';

export class DataDirLockedError extends Error {}

/**
 * The lock databases this process holds, until unlocked: the lock must not depend on the
 * caller keeping the unlock function (better-sqlite3 13 closes a collected Database, which
 * would drop the lock at the next garbage collection).
 */
const held = new Set<InstanceType<typeof Database>>();

export function lockDataDir(dataDir: string): () => void {
  const dir = realpathSync(dataDir);
  const file = join(dir, 'serve.lock');
  const pidFile = join(dir, 'serve.pid');
  let db: InstanceType<typeof Database> | undefined;
  try {
    // A second's grace: a holder just killed may not have exited yet, and its exit frees the lock.
    db = new Database(file, { timeout: 1000 });
    chmodSync(file, 0o600);
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db?.close();
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw new DataDirLockedError(`another pctl serve${holder(pidFile)} is already using ${dir}; stop it first, or pass a different --data DIR`);
    }
    if (code === 'SQLITE_NOTADB') {
      // The PID file an older pctl used as its lock: nothing holds it any more.
      rmSync(file, { force: true });
      return lockDataDir(dataDir);
    }
    throw err;
  }
  writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
  const lock = db;
  held.add(lock);
  return () => {
    rmSync(pidFile, { force: true });
    held.delete(lock);
    lock.close(); // rolls the transaction back: the lock is released
  };
}

function holder(pidFile: string): string {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
    return pid ? ` (pid ${pid})` : '';
  } catch {
    return '';
  }
}
