// One serve per data dir. The lock file names the holder's pid; a lock whose process is
// gone (kill -9, power loss) is stale and taken over. Within one process (tests) a set of
// held dirs does the same job, since the pid would match.
import { openSync, readFileSync, realpathSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { join } from 'node:path';

const heldHere = new Set<string>();

export class DataDirLockedError extends Error {}

export function lockDataDir(dataDir: string): () => void {
  const dir = realpathSync(dataDir);
  const file = join(dir, 'serve.lock');
  if (heldHere.has(dir)) throw new DataDirLockedError(`another pctl serve in this process is already using ${dir}`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      heldHere.add(dir);
      return () => {
        heldHere.delete(dir);
        rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DataDirLockedError(`another pctl serve (pid ${pid}) is already using ${dir}; stop it first, or pass a different --data DIR`);
      }
      rmSync(file, { force: true }); // stale: its holder is gone
    }
  }
  throw new DataDirLockedError(`could not lock ${dir} (${file}); is another pctl serve starting?`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
