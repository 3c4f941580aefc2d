// Shared pieces of the benchmarks: child-process servers, autocannon runs, medians.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { request } from 'undici';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const pctl = join(root, 'bin', 'pctl.js');

export function tempDir(prefix = 'pctl-bench-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Takes `name VALUE` out of argv (so what is left are the positional arguments): VALUE as a number, or fallback. */
export function numericOption(argv, name, fallback) {
  const at = argv.indexOf(name);
  if (at === -1) return fallback;
  const [, value] = argv.splice(at, 2);
  return Number(value);
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

/** A gRPC request body: the 5-byte frame header (uncompressed, length) and a message of string fields. */
export function grpcFrame(fields) {
  const parts = [];
  for (const [no, value] of fields) {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
    const wire = typeof value === 'number' ? 0 : 2;
    parts.push(Buffer.from([(no << 3) | wire]));
    parts.push(wire === 0 ? varint(value) : Buffer.concat([varint(bytes.length), bytes]));
  }
  const message = Buffer.concat(parts);
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

function varint(n) {
  const out = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  out.push(n);
  return Buffer.from(out);
}

/** One call over node:http2 (gRPC) or HTTP/1.1 (gRPC-Web, Connect): its grpc-status, or the HTTP status of a Connect call, so that load runs count answers, not errors. */
export async function rpcStatus(url, path, body, headers, { h1 = false } = {}) {
  if (h1) {
    const r = await request(`${url}${path}`, { method: 'POST', headers, body });
    const bytes = Buffer.from(await r.body.arrayBuffer());
    if (headers['content-type'].startsWith('application/grpc-web')) return /grpc-status:\s*(\d+)/.exec(bytes.toString('latin1'))?.[1] ?? r.headers['grpc-status'];
    return r.statusCode === 200 ? '0' : `HTTP ${r.statusCode}: ${bytes}`;
  }
  const http2 = await import('node:http2');
  const session = http2.connect(url);
  try {
    return await new Promise((resolve, reject) => {
      const req = session.request({ ':method': 'POST', ':path': path, te: 'trailers', ...headers });
      let status;
      req.on('response', (h) => { status = h['grpc-status']; });
      req.on('trailers', (h) => { status = h['grpc-status']; });
      req.on('end', () => resolve(status));
      req.on('error', reject);
      req.resume();
      req.end(body);
    });
  } finally {
    session.close();
  }
}

/**
 * One h2load run (nghttp2-client; `--h1` for HTTP/1.1, else h2c with prior knowledge): req/s,
 * and the server's CPU time per request when its pid is given (utime + stime from /proc, Linux:
 * on a shared machine the rate moves with the neighbours' load, the CPU a request costs much
 * less). Fails on any 4xx/5xx.
 */
export function h2load(args, pid) {
  const cpuBefore = pid && cpuMs(pid);
  const r = spawnSync('h2load', args, { encoding: 'utf8' });
  const rate = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(r.stdout);
  const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(r.stdout);
  const done = /requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, (\d+) failed, (\d+) errored/.exec(r.stdout);
  if (!rate || !codes || Number(codes[3]) + Number(codes[4]) > 0 || Number(done?.[2] ?? 0) > 0) throw new Error(`h2load ${args.join(' ')}: ${r.stdout.slice(-400)}${r.stderr}`);
  const cpuAfter = pid && cpuMs(pid);
  return { rate: Number(rate[1]), cpuUs: cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1000) / Number(done[1]) };
}

/** A process's CPU time so far (user + system), in ms; undefined without Linux's /proc. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ: 100 on Linux
  } catch {
    return undefined;
  }
}

/**
 * `pctl serve ARGS` under /usr/bin/time: resolves once listening with the ms it took, the
 * node process's RSS now (rssMiB) and stop(), which ends it and gives node's peak RSS in MiB.
 */
export function serveMeasured(args, configDir) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, pctl, 'serve', '--port', '0', '--rate-limit', 'off', ...args], {
      env: { ...process.env, PCTL_CONFIG_DIR: configDir }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const exited = new Promise((r) => child.once('exit', r));
    // time's child: the node process serving.
    const node = () => Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim() || 0);
    child.stdout.on('data', (c) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && !child.url) {
        child.url = m[1];
        resolve({
          url: m[1], ms: performance.now() - t0,
          rssMiB: () => rssMiBOf(node()),
          stop: async () => {
            const pid = node();
            if (pid) process.kill(pid, 'SIGTERM');
            else await stopChild(child);
            await exited;
            return Number(/maxrss_kb=(\d+)/.exec(err)?.[1] ?? 0) / 1024;
          },
        });
      }
    });
    child.stderr.on('data', (c) => { err += c; });
    child.once('exit', (code) => { if (!child.url) reject(new Error(`serve exited with ${code}: ${err.slice(-2000)}`)); });
  });
}

function rssMiBOf(pid) {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1024;
}
