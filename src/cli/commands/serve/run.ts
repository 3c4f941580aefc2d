// `pctl serve`, `pctl serve export`, `pctl serve reset`: the local API server. Loaded
// only when one of them runs, so no other command pays for SQLite.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface ServeCommandOptions {
  host?: string;
  port?: string | number;
  data?: string;
  seed?: string;
  demo?: boolean;
  log?: boolean;
}

/** The data dir: --data, then PCTL_DATA_DIR, then the platform's data dir for pctl. */
export async function resolveDataDir(ctx: Context, data?: string): Promise<string> {
  if (data) return data;
  if (ctx.env.PCTL_DATA_DIR) return ctx.env.PCTL_DATA_DIR;
  const { default: envPaths } = await import('env-paths');
  return envPaths('pctl', { suffix: '' }).data;
}

function parsePort(raw: string | number | undefined): number {
  if (raw === undefined) return 8700;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw UsageError.invalidField('port', 'must be an integer from 0 to 65535');
  return port;
}

export async function runServe(ctx: Context, opts: ServeCommandOptions): Promise<number> {
  const port = parsePort(opts.port);
  const dataDir = await resolveDataDir(ctx, opts.data);
  const { startServer } = await import('../../../server/index.js');
  const { DataDirLockedError } = await import('../../../server/lock.js');
  const err = (line: string) => ctx.io.stderr.write(`${line}\n`);

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      dataDir,
      host: opts.host ?? '127.0.0.1',
      port,
      ...(opts.log ? { log: err } : {}),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof DataDirLockedError) throw new Error(e.message);
    if (code === 'EADDRINUSE') throw new Error(`port ${port} on ${opts.host ?? '127.0.0.1'} is already in use; pass --port 0 to pick a free one`);
    if (code === 'EACCES') throw new Error(`not allowed to listen on port ${port}; pick a port above 1023`);
    throw e;
  }

  // Register the `local` profile so `pctl …` in another terminal just works.
  const { saveProfile } = await import('../../../config/index.js');
  saveProfile('local', { apiUrl: server.url, token: server.ownerToken }, {
    makeCurrentIfNone: true,
    ...(ctx.env.PCTL_CONFIG_DIR ? { configDir: ctx.env.PCTL_CONFIG_DIR } : {}),
  });

  ctx.io.stdout.write(`pctl serve listening on ${server.url} (data: ${dataDir})\n`);
  err(`Organization ${server.organizationUid}; owner token in ${join(dataDir, 'owner.token')}`);
  err(`Profile "local" points at it. Try, in another terminal:`);
  err(`  pctl groups list                  # or: PCTL_API_URL=${server.url} PCTL_TOKEN=$(cat ${join(dataDir, 'owner.token')}) pctl groups list`);
  err(`  pctl groups list --descendants-of ${server.organizationUid}`);
  err('Press Ctrl-C to stop.');

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      err(`${signal}: shutting down`);
      void server.close().then(resolve);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
  return 0;
}

export async function runExport(_ctx: Context, _opts: { data?: string }): Promise<number> {
  throw new UsageError('pctl serve export is not implemented yet');
}

/** Empties a data dir (after confirmation); the next start bootstraps it afresh. */
export async function runReset(ctx: Context, opts: { data?: string; yes?: boolean }): Promise<number> {
  const dataDir = await resolveDataDir(ctx, opts.data);
  if (!existsSync(join(dataDir, 'pctl.db'))) {
    ctx.io.stderr.write(`${dataDir} holds no pctl data; nothing to reset\n`);
    return 0;
  }
  if (!(opts.yes || ctx.globals.yes)) {
    if (!ctx.io.stdinIsTTY) throw new UsageError(`refusing to erase ${dataDir} without confirmation; pass --yes`);
    if (!(await ctx.prompter.confirm(`Erase every resource in ${dataDir}?`))) {
      ctx.io.stderr.write('Aborted.\n');
      return 2;
    }
  }
  const { lockDataDir } = await import('../../../server/lock.js');
  const unlock = lockDataDir(dataDir);
  try {
    for (const file of ['pctl.db', 'pctl.db-wal', 'pctl.db-shm', 'owner.token']) rmSync(join(dataDir, file), { force: true });
  } finally {
    unlock();
  }
  ctx.io.stderr.write(`Erased ${dataDir}; the next pctl serve bootstraps a new organization and owner token.\n`);
  return 0;
}
