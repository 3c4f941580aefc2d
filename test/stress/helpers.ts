// Stress-test helpers: `pctl serve` as a real child process (the built CLI in dist/, as a
// user runs it), keep-alive HTTP clients, paging, snapshots and the AIP-193 shape check.
// Every child started here is SIGKILLed in teardown (killAll), and on process exit too.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PCTL = join(ROOT, 'bin', 'pctl.js');

export const G = '/iam/v2/groups';
export const I = '/iam/v2/identities';
export const RB = '/iam/v2/roleBindings';
export const ROLES = '/iam/v2/roles';

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
process.once('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A temp dir removed by cleanup() (and at process exit as a last resort). */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(d);
  return d;
}

/** SIGKILLs every serve still running and removes every temp dir; for t.teardown / test.after.always. */
export async function cleanup(): Promise<void> {
  await Promise.all([...children].map((c) => killHard(c)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm ci does it through prepare)');
  }
}

export interface Serve {
  url: string;
  pid: number;
  child: ChildProcess;
  dataDir: string;
  token: string;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code / signal once the child has exited (and been reaped). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `node bin/pctl.js serve --port 0 --data DIR --rate-limit off`; resolves when it prints
 * its URL. No limits unless asked (`rateLimit`; null: serve's default): 50 clients as one
 * identity are the load under test.
 */
export function startServe(dataDir: string, opts: { timeoutMs?: number; rateLimit?: string | null; database?: string; args?: string[] } = {}): Promise<Serve> {
  assertBuilt();
  const configDir = tempDir('pctl-stress-config-');
  const database = opts.database ? ['--database', opts.database] : [];
  const rateLimit = opts.rateLimit === null ? [] : ['--rate-limit', opts.rateLimit ?? 'off'];
  const child = spawn(process.execPath, [PCTL, 'serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir, ...rateLimit, ...database, ...(opts.args ?? [])], {
    env: { ...process.env, PCTL_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => { err += c; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not print its URL within ${opts.timeoutMs ?? 15000} ms; stderr: ${err}`));
    }, opts.timeoutMs ?? 15_000);
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && timer) {
        clearTimeout(timer);
        resolve({
          url: m[1]!, pid: child.pid!, child, dataDir, exited,
          token: readFileSync(join(dataDir, 'owner.token'), 'utf8').trim(),
          stderr: () => err,
        });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (code ${code}, signal ${signal}) before it was ready; stderr: ${err}`));
    });
  });
}

/** Runs `pctl serve` expecting it to refuse to start; resolves with its exit code and output. */
export function runServeExpectingExit(dataDir: string, timeoutMs = 15_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const configDir = tempDir('pctl-stress-config-');
  const child = spawn(process.execPath, [PCTL, 'serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir], {
    env: { ...process.env, PCTL_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
  child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** kill -9, and wait until the process is gone (reaped), so its pid is really dead. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}

/** SIGTERM (a clean shutdown), falling back to SIGKILL after 5 s. */
export async function stopServe(srv: Serve): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (srv.child.exitCode === null && srv.child.signalCode === null) {
    srv.child.kill('SIGTERM');
    const t = setTimeout(() => srv.child.kill('SIGKILL'), 5000);
    const r = await srv.exited;
    clearTimeout(t);
    return r;
  }
  return srv.exited;
}

export interface Res {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as the API sent it; tests assert its shape
  json: any;
  headers: Record<string, string | string[] | undefined>;
}

/** A keep-alive client on one origin (undici Pool). Paths are sent exactly as given. */
export class Client {
  readonly pool: Pool;
  constructor(readonly url: string, readonly token: string | undefined, connections = 10) {
    this.pool = new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  }

  async req(method: string, path: string, body?: unknown, opts: { headers?: Record<string, string>; auth?: boolean; raw?: boolean } = {}): Promise<Res> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.auth !== false && this.token) headers.authorization = `Bearer ${this.token}`;
    let payload: string | Buffer | undefined;
    if (body !== undefined) {
      payload = opts.raw ? (body as string | Buffer) : JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const r = await this.pool.request({ method, path, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await r.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: r.statusCode, text, json, headers: r.headers };
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

/** Pages through a list route; returns every item, the totalCount of each page, and the page count. */
export async function listAll(c: Client, path: string, plural: string, query: Record<string, string> = {}, pageSize = 200) {
  const items: Record<string, unknown>[] = [];
  const totals = new Set<string>();
  let token = '';
  let pages = 0;
  do {
    const q = new URLSearchParams({ ...query, page_size: String(pageSize), ...(token ? { page_token: token } : {}) });
    const res = await c.req('GET', `${path}?${q.toString()}`);
    if (res.status !== 200) throw new Error(`GET ${path}?${q.toString()}: ${res.status} ${res.text.slice(0, 300)}`);
    items.push(...(res.json[plural] as Record<string, unknown>[]));
    totals.add(res.json.totalCount as string);
    token = res.json.nextPageToken ?? '';
    if (++pages > 100_000) throw new Error('paging does not end');
  } while (token);
  return { items, totals: [...totals], pages };
}

/** The IAM data set by uid, for before/after comparisons. */
export async function snapshot(c: Client) {
  const out: Record<string, Map<string, Record<string, unknown>>> = {};
  for (const [path, plural] of [[G, 'groups'], [I, 'identities'], [RB, 'roleBindings'], [ROLES, 'roles']] as const) {
    const { items } = await listAll(c, path, plural);
    out[plural] = new Map(items.map((x) => [x.uid as string, x]));
  }
  return out as { groups: Map<string, Record<string, unknown>>; identities: Map<string, Record<string, unknown>>; roleBindings: Map<string, Record<string, unknown>>; roles: Map<string, Record<string, unknown>> };
}

/** The parent uid of a nested uid (`a/b/c` → `a/b`); undefined for a flat one. */
export function parentOf(uid: string): string | undefined {
  const i = uid.lastIndexOf('/');
  return i === -1 ? undefined : uid.slice(0, i);
}

/** Why a body is not a bare google.rpc.Status (AIP-193), or undefined when it is one. */
export function statusProblem(json: unknown): string | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return 'body is not a JSON object';
  const s = json as Record<string, unknown>;
  if (typeof s.code !== 'number' || !Number.isInteger(s.code) || s.code <= 0) return 'code is not a positive integer';
  if (typeof s.message !== 'string' || !s.message) return 'message is not a non-empty string';
  if (!Array.isArray(s.details)) return 'details is not an array';
  for (const d of s.details) {
    if (!d || typeof d !== 'object' || typeof (d as Record<string, unknown>)['@type'] !== 'string') return 'a detail has no @type';
  }
  return undefined;
}

/** mulberry32: a small seeded PRNG, so a fuzz run can be replayed from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
export type Rng = ReturnType<typeof prng>;

