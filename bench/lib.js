// Shared pieces of the benchmarks: child-process servers, autocannon runs, medians.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const pctl = join(root, 'bin', 'pctl.js');

export function tempDir(prefix = 'pctl-bench-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Starts a child process and resolves once it prints a line with an http:// URL on stdout. */
export function startChild(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const onData = (chunk) => {
      out += chunk;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        resolve({ url: m[1], child, stop: () => stopChild(child) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c) => { err += c; });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before ready: ${err}`)));
  });
}

export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Starts `pctl serve` on a data dir, port 0, in a child process; no limits unless `rateLimit`
 * names them (the load is the point; null: serve's default). With `database`, the data lives
 * there (a replica of it), not in the data dir.
 */
export async function startServe(dataDir, { database, rateLimit = 'off' } = {}) {
  const configDir = tempDir('pctl-bench-config-');
  const limits = rateLimit === null ? [] : ['--rate-limit', rateLimit];
  const serve = await startChild([pctl, 'serve', '--port', '0', '--data', dataDir, ...limits, ...(database ? ['--database', database] : [])], { PCTL_CONFIG_DIR: configDir });
  // The config dir serve's profile went into goes with it.
  return { ...serve, stop: () => serve.stop().then(() => rmSync(configDir, { recursive: true, force: true })) };
}

/** req/s of autocannon against one URL (10 connections). */
export async function reqPerSec(url, opts = {}) {
  return (await autocannonRun(url, opts)).rate;
}

/** One autocannon run against one URL (10 connections): req/s and the requests answered. */
export async function autocannonRun(url, { headers = {}, duration = 5, connections = 10 } = {}) {
  const result = await autocannon({ url, headers, duration, connections, pipelining: 1 });
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rate: result.requests.average, total: result.requests.total };
}

/** One run of a command: its wall time in ms (throws if it fails). */
function timeOnce(cmd, args, env) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { env: { ...process.env, ...env } });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return ms;
}

/**
 * Median wall times of several commands run in turn (A B C A B C …), n rounds after one
 * warm-up round: each is measured on the same machine state as the others.
 */
export function interleavedWallMs(commands, n = 15) {
  for (const c of commands) timeOnce(c.cmd, c.args, c.env ?? {});
  const times = commands.map(() => []);
  for (let i = 0; i < n; i++) commands.forEach((c, k) => times[k].push(timeOnce(c.cmd, c.args, c.env ?? {})));
  return times.map(median);
}

/** Requests per second of `send()` called one after another (one client) for `n` calls. */
export async function sequentialRate(send, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await send(i);
  return n / ((performance.now() - t0) / 1000);
}

export function fmt(n, digits = 0) {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}
