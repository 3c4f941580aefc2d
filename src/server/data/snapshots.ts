// Snapshots of a data dir, taken and restored while serve runs: DATA_DIR/snapshots/NAME.db,
// each a standalone SQLite file (dir 0700, files 0600). `.initial` (a name no user can give:
// it starts with a dot) is taken right after the first bootstrap; a live reset restores it.
import { closeSync, existsSync, fsyncSync, mkdirSync, chmodSync, openSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, Code, failedPrecondition, invalidField } from '../../api/errors.js';
import { snapshotNameProblem, SNAPSHOT_NAME, type SnapshotInfo } from '../../api/snapshots.js';
import { timestamp } from '../store/record.js';
import { IncompatibleDatabaseError, type Store } from '../store/store.js';

/** Meta rows that describe the running server rather than its data: a restore leaves them as they are. */
const SERVER_META = ['page_token_key'] as const;

const INITIAL = '.initial';

export function snapshotsDir(dataDir: string): string {
  return join(dataDir, 'snapshots');
}

export interface SnapshotsOptions {
  dataDir: string;
  store: Store;
  /** Serve's clock: a snapshot's createTime. */
  clock: () => number;
  /**
   * Runs in the restore's own transaction, to fit the restored rows to this server (its issuer
   * URL, which identities name, may differ from the one they were saved with).
   */
  adjust?: () => void;
  /** After a restore has committed (`reset`: the initial state was restored). */
  restored?: (reset: boolean) => void;
  /** Why this serve has no snapshots (its data is not in a SQLite file): every call is code 9 saying so. */
  unavailable?: string;
}

export class Snapshots {
  private readonly dir: string;
  /** One operation at a time: a restore never meets a save or a delete of the same file halfway. */
  private queue: Promise<unknown> = Promise.resolve();
  private temps = 0;

  constructor(private readonly opts: SnapshotsOptions) {
    this.dir = snapshotsDir(opts.dataDir);
  }

  list(): SnapshotInfo[] {
    this.checkAvailable();
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.db') && SNAPSHOT_NAME.test(f.slice(0, -3)))
      .map((f) => this.info(f.slice(0, -3)))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Saves the data as NAME; an existing NAME is ALREADY_EXISTS unless `overwrite`. */
  save(name: unknown, overwrite = false): Promise<SnapshotInfo> {
    const valid = checkName(name);
    return this.exclusive(async () => {
      if (!overwrite && existsSync(this.file(valid))) {
        throw new ApiError(Code.ALREADY_EXISTS, `Snapshot ${valid} already exists; overwrite it with --force (overwrite: true)`, { reason: 'ALREADY_EXISTS' });
      }
      await this.write(valid);
      return this.info(valid);
    });
  }

  /** Replaces the data with snapshot NAME's, in one transaction. */
  restore(name: unknown): Promise<SnapshotInfo> {
    const valid = checkName(name);
    return this.exclusive(async () => {
      if (!existsSync(this.file(valid))) throw notFound(valid);
      await this.replace(valid);
      this.opts.restored?.(false);
      return this.info(valid);
    });
  }

  remove(name: unknown): Promise<void> {
    const valid = checkName(name);
    return this.exclusive(async () => {
      if (!existsSync(this.file(valid))) throw notFound(valid);
      rmSync(this.file(valid));
    });
  }

  /** Keeps the state of a data dir just bootstrapped, for reset(). */
  saveInitial(): Promise<void> {
    return this.exclusive(() => this.write(INITIAL));
  }

  /** Back to the state the data dir was bootstrapped in (its seed, or the plain bootstrap). */
  reset(): Promise<void> {
    return this.exclusive(async () => {
      if (!existsSync(this.file(INITIAL))) {
        throw failedPrecondition(
          `This data dir was created before pctl serve kept its initial state (${join(this.dir, `${INITIAL}.db`)}), so there is nothing to reset to live; ` +
            `stop serve and run: pctl serve reset --data ${this.opts.dataDir} (it erases everything and bootstraps again)`,
          [{ type: 'NO_INITIAL_SNAPSHOT', subject: this.opts.dataDir, description: 'the data dir has no initial snapshot (it predates them)' }],
        );
      }
      await this.replace(INITIAL);
      this.opts.restored?.(true);
    });
  }

  private file(name: string): string {
    return join(this.dir, `${name}.db`);
  }

  private info(name: string): SnapshotInfo {
    const st = statSync(this.file(name));
    return { name, sizeBytes: st.size, createTime: timestamp(st.mtimeMs) };
  }

  private checkAvailable(): void {
    if (this.opts.unavailable) {
      throw failedPrecondition(`Snapshots are not available: ${this.opts.unavailable}`, [
        { type: 'SNAPSHOTS_UNAVAILABLE', subject: 'store', description: this.opts.unavailable },
      ]);
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.checkAvailable();
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Copies the database into a hidden temp file, then renames it into place: a crash or a
   * failed copy never leaves a half snapshot under the name, and a restore reads a whole one.
   */
  private async write(name: string): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const temp = join(this.dir, `.${name}.${process.pid}.${++this.temps}.tmp`);
    // Created 0600 before SQLite opens it: SQLite keeps an existing file's mode.
    closeSync(openSync(temp, 'wx', 0o600));
    try {
      await this.opts.store.saveCopy(temp);
      chmodSync(temp, 0o600);
      // The file's time is the snapshot's createTime, by serve's clock (a deterministic serve's too).
      const at = new Date(this.opts.clock());
      utimesSync(temp, at, at);
      renameSync(temp, this.file(name));
      syncDir(this.dir);
    } catch (err) {
      rmSync(temp, { force: true });
      rmSync(`${temp}-journal`, { force: true });
      throw err;
    }
  }

  private async replace(name: string): Promise<void> {
    try {
      await this.opts.store.replaceWith(this.file(name), SERVER_META, this.opts.adjust);
    } catch (err) {
      if (!(err instanceof IncompatibleDatabaseError)) throw err;
      const shown = name === INITIAL ? 'the initial snapshot' : `snapshot ${name}`;
      throw failedPrecondition(`Cannot restore ${shown}: ${err.reason}; nothing was changed`, [
        { type: 'SNAPSHOT_INCOMPATIBLE', subject: name, description: err.reason },
      ]);
    }
  }
}

function checkName(name: unknown): string {
  const problem = snapshotNameProblem(name);
  if (problem) throw invalidField('name', problem);
  return name as string;
}

function notFound(name: string): ApiError {
  return new ApiError(Code.NOT_FOUND, `Snapshot not found: ${name}`, { reason: 'NOT_FOUND', metadata: { snapshot: name } });
}

/** A rename is durable once the directory that holds it is synced. */
function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
