// A throwaway PostgreSQL cluster for the tests, and a fresh isolated schema per test server.
// Plain ESM so that scripts/test-postgres.mjs runs it under bare node; test/helpers imports it
// through pg-cluster.d.mts.
//
//   const cluster = await startPostgresCluster();
//   if (!cluster.available) console.log(cluster.reason);
//   else { const url = await freshDatabaseUrl(cluster.url); …; await dropDatabase(url); await cluster.stop(); }
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The prefix of the cluster dirs under the temp dir; stale ones are reaped by it. */
const DIR_PREFIX = 'pctl-pg-';
/** The superuser initdb creates, named in every URL (trust auth: no password). */
const SUPERUSER = 'pctl';
/** The system user that runs the server when we are root (postgres refuses to run as root). */
const SERVICE_USER = 'postgres';
/** Schemas (or databases) made by freshDatabaseUrl; dropDatabase drops only these. */
const ISOLATED_PREFIX = 'pctl_t_';

/**
 * Where initdb, pg_ctl and postgres are: PCTL_POSTGRES_BINDIR when set (to pick a version, or
 * a dir without them to try the skip), else `pg_config --bindir` (when it holds the server),
 * else the highest /usr/lib/postgresql/N/bin (Debian), else PATH.
 * @returns {{ bindir: string } | { reason: string }}
 */
export function findPostgresBinaries() {
  const hasServer = (dir) => ['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(dir, name)));
  const chosen = process.env.PCTL_POSTGRES_BINDIR;
  if (chosen) return hasServer(chosen) ? { bindir: chosen } : { reason: `no initdb, pg_ctl and postgres in PCTL_POSTGRES_BINDIR=${chosen}` };
  const candidates = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // No pg_config (it comes with libpq-dev or postgresql-common); the other places remain.
  }
  try {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    // Not Debian's layout.
  }
  candidates.push(...(process.env.PATH ?? '').split(delimiter).filter(Boolean));
  const bindir = candidates.find(hasServer);
  return bindir ? { bindir } : { reason: 'no PostgreSQL server binaries (initdb, pg_ctl, postgres) in pg_config --bindir, /usr/lib/postgresql/*/bin or PATH' };
}

/**
 * How to run the server's binaries: directly, or as SERVICE_USER when we are root.
 * @returns {{ uid: number, gid: number, wrap: (argv: string[]) => string[] } | { reason: string } | null}
 */
function unprivilegedUser() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  let uid, gid;
  try {
    uid = Number(execFileSync('id', ['-u', SERVICE_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    gid = Number(execFileSync('id', ['-g', SERVICE_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return { reason: `running as root and there is no '${SERVICE_USER}' user to run PostgreSQL as` };
  }
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find(existsSync);
  if (runuser) return { uid, gid, wrap: (argv) => [runuser, '-u', SERVICE_USER, '--', ...argv] };
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(existsSync);
  if (setpriv) return { uid, gid, wrap: (argv) => [setpriv, `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', ...argv] };
  return { reason: 'running as root and neither runuser nor setpriv is there to drop to an unprivileged user' };
}

/** A port that was free a moment ago (the caller retries when it is taken in between). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether a process with this pid exists (EPERM: it does, someone else's). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * Clusters whose node process died without stopping them (SIGKILL, a crash): stopped and
 * removed, so that a killed run leaves at most one cluster behind, until the next start.
 */
function reapStaleClusters(bindir, user) {
  let entries;
  try {
    entries = readdirSync(tmpdir()).filter((name) => name.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of entries) {
    const dir = join(tmpdir(), name);
    let owner;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // Not ours to judge (or still being set up).
    }
    if (!owner || alive(owner)) continue;
    stopSync(bindir, user, dir);
  }
}

/** Whether `pid` is a process that has not exited (a zombie has: only its parent's wait is left). */
function running(pid) {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return existsSync('/proc/self') ? false : alive(pid); // No such pid, or no /proc to ask.
  }
}

/**
 * pg_ctl stop -m immediate (a throwaway cluster needs no checkpoint), then the dir goes. pg_ctl
 * returns once postmaster.pid is removed, a moment before the postmaster exits: wait for that
 * too (up to 10 s), so that nothing is left running when this returns.
 */
function stopSync(bindir, user, dir) {
  const pidFile = join(dir, 'data', 'postmaster.pid');
  let postmaster = 0;
  try {
    postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    // Never started (or already stopped): removing the dir is all that is left.
  }
  if (postmaster) {
    const argv = [join(bindir, 'pg_ctl'), '-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop'];
    const [file, ...args] = user ? user.wrap(argv) : argv;
    try {
      execFileSync(file, args, { cwd: dir, stdio: 'ignore', timeout: 30_000 });
    } catch {
      // Already stopped; the wait below still applies.
    }
    const tick = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; running(postmaster) && waited < 10_000; waited += 10) Atomics.wait(tick, 0, 0, 10);
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Starts a throwaway cluster: initdb into a fresh temp dir (trust auth, superuser `pctl`,
 * UTF8, no locale), then postgres on a free 127.0.0.1 port with fsync on (the crash tests rely
 * on durability). It never throws for a missing or broken PostgreSQL: it answers
 * `{ available: false, reason }` instead, so that callers can skip visibly.
 *
 * The cluster is stopped by stop(), and also when this process exits or gets SIGINT/SIGTERM.
 * @param {{ log?: (line: string) => void }} [options]
 */
export async function startPostgresCluster({ log = () => {} } = {}) {
  const found = findPostgresBinaries();
  if ('reason' in found) return { available: false, reason: found.reason };
  const { bindir } = found;
  const user = unprivilegedUser();
  if (user && 'reason' in user) return { available: false, reason: user.reason };
  const exec = (argv, options = {}) => {
    const [file, ...args] = user ? user.wrap(argv) : argv;
    return run(file, args, { encoding: 'utf8', timeout: 120_000, ...options });
  };

  reapStaleClusters(bindir, user);
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  if (user) {
    // The server runs as SERVICE_USER: it owns the dir (the data dir, the log, the socket).
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    stopSync(bindir, user, dir);
  };
  // A signal stops the cluster and then ends the process as the signal would have.
  const onSignal = (signal) => {
    stop();
    process.kill(process.pid, signal);
  };
  process.on('exit', stop);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const fail = (reason) => {
    let tail = '';
    try {
      tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ');
    } catch {
      // No log yet.
    }
    stop();
    return { available: false, reason: tail ? `${reason} (log: ${tail})` : reason };
  };

  try {
    await exec([join(bindir, 'initdb'), '-D', dataDir, '--auth=trust', '-U', SUPERUSER, '--encoding=UTF8', '--no-locale', '--no-sync'], { cwd: dir });
  } catch (err) {
    return fail(`initdb failed: ${String(err.stderr || err.message).trim().split('\n').slice(-2).join(' ')}`);
  }
  const tInit = performance.now();

  // The port is free when picked but may be taken before postgres binds it: pick again.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const settings = [
      '-c listen_addresses=127.0.0.1', `-p ${port}`, `-c unix_socket_directories=${dir}`,
      '-c fsync=on', '-c max_connections=300', '-c shared_buffers=64MB',
    ].join(' ');
    try {
      await exec([join(bindir, 'pg_ctl'), '-w', '-t', '60', '-D', dataDir, '-l', logFile, '-o', settings, 'start'], { cwd: dir });
    } catch (err) {
      const logText = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
      if (attempt < 5 && /could not bind|Address already in use/i.test(logText)) {
        log(`port ${port} was taken; retrying`);
        rmSync(logFile, { force: true });
        continue;
      }
      return fail(`pg_ctl start failed: ${String(err.stderr || err.message).trim().split('\n').slice(-2).join(' ')}`);
    }
    const tStart = performance.now();
    const timings = { initdbMs: Math.round(tInit - t0), startMs: Math.round(tStart - tInit), totalMs: Math.round(tStart - t0) };
    const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
    log(`postgres ${bindir} on ${url} in ${dir} (initdb ${timings.initdbMs} ms, start ${timings.startMs} ms)`);
    return { available: true, url, port, dir, bindir, timings, stop: async () => stop() };
  }
}

/**
 * `base` with `options=-c search_path=SCHEMA` in its query, spelled with %20 and %3D
 * (URLSearchParams would write a space as `+`, which not every URL parser reads as one).
 */
function withSearchPath(base, schema) {
  const url = new URL(base);
  url.searchParams.delete('options');
  const options = `options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  url.search = url.search ? `${url.search}&${options}` : `?${options}`;
  return url.toString();
}

/** `base` without the query (node-postgres sends each parameter as a startup option). */
function withoutQuery(base) {
  const url = new URL(base);
  url.search = '';
  return url.toString();
}

async function withClient(connectionString, fn) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of its own for one test server, on the cluster at `baseUrl`. By default a new
 * schema `pctl_t_<hex>`, selected through the URL's `options` parameter
 * (`?options=-c search_path=pctl_t_…`), which node-postgres sends in the startup packet: every
 * connection made from the URL starts with that search_path. A schema costs a few ms.
 * `{ kind: 'database' }` makes a whole database instead (CREATE DATABASE … TEMPLATE template0,
 * which copies files and checkpoints: tens of ms), for code that must not share a database.
 * @param {string} baseUrl
 * @param {{ kind?: 'schema' | 'database' }} [options]
 */
export async function freshDatabaseUrl(baseUrl, { kind = 'schema' } = {}) {
  const name = ISOLATED_PREFIX + randomBytes(6).toString('hex');
  if (kind === 'database') {
    await withClient(withoutQuery(baseUrl), (c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`));
    const url = new URL(withoutQuery(baseUrl));
    url.pathname = `/${name}`;
    return url.toString();
  }
  await withClient(withoutQuery(baseUrl), (c) => c.query(`CREATE SCHEMA ${name}`));
  return withSearchPath(baseUrl, name);
}

/**
 * Drops what freshDatabaseUrl made for `url` (its schema, or its database, with the
 * connections still open to it). Anything else is left alone: it only drops `pctl_t_` names.
 * @param {string} url
 */
export async function dropDatabase(url) {
  const parsed = new URL(url);
  const schema = /search_path=(\w+)/.exec(parsed.searchParams.get('options') ?? '')?.[1];
  if (schema?.startsWith(ISOLATED_PREFIX)) {
    await withClient(withoutQuery(url), (c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    return;
  }
  const database = decodeURIComponent(parsed.pathname.slice(1));
  if (database.startsWith(ISOLATED_PREFIX) && /^\w+$/.test(database)) {
    parsed.pathname = '/postgres';
    await withClient(withoutQuery(parsed.toString()), (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}
