// `pctl serve`, `pctl serve export`, `pctl serve reset`: the local API server. Loaded
// only when one of them runs, so no other command pays for SQLite.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface ServeCommandOptions {
  host?: string;
  port?: string | number;
  data?: string;
  /** `--database URL` (else PCTL_DATABASE_URL): PostgreSQL instead of the data dir's SQLite. */
  database?: string;
  /** `--public-url URL`: the issuer, when clients reach serve through something else. */
  publicUrl?: string;
  seed?: string;
  demo?: boolean;
  log?: boolean;
  /** `fair`, `100/s`, `6000/m,200`, `off` (see server/ratelimit.ts); absent, the server's default (fair). */
  rateLimit?: string;
  /** `URL=JWKS_FILE`, repeatable: another issuer whose tokens serve accepts, checked offline. */
  trustIssuer?: string[];
  /** `--audience A`, repeatable: more audiences serve answers for. */
  audience?: string[];
  /** `--trust-test-issuers`: tokens of `pctl serve token --as-issuer` are exchanged (tests only). */
  trustTestIssuers?: boolean;
  ownerTokenTtl?: string;
  /** `--fault RULE`, repeatable (src/api/faults.ts has the grammar). */
  fault?: string[];
  latency?: string;
  journal?: string;
  /** `--deterministic SEED`: reproducible uids, codes and timestamps. */
  deterministic?: string;
  /** Webhook deliveries: `--event-retry DURATION`, `--event-attempts N`, `--event-timeout DURATION`. */
  eventRetry?: string;
  eventAttempts?: string;
  eventTimeout?: string;
  /** `--mcp-writes`: the write tools on /mcp too. */
  mcpWrites?: boolean;
  /** `--mcp-session-idle DURATION`: when an unused /mcp session ends. */
  mcpSessionIdle?: string;
  /** `--v1 on|off`: the v1 API beside v2, or 410 Gone for every v1 call. */
  v1?: string;
  /** `--v1-sunset DATE`: the Sunset header of v1 answers. */
  v1Sunset?: string;
  /** `--http2-timeouts preface=D,headers=D,body=D,idle=D`: HTTP/2's deadlines (any of them). */
  http2Timeouts?: string;
  /** `--http2 own|node`: serve's own HTTP/2 or node:http2. */
  http2?: string;
  /** `--allow-private-sinks`: webhook sinks may point at private and link-local addresses. */
  allowPrivateSinks?: boolean;
}

/** `--v1` and `--v1-sunset` as the server's v1 options. */
function v1Flags(opts: ServeCommandOptions): { enabled: boolean; sunset?: Date } {
  if (opts.v1 !== undefined && opts.v1 !== 'on' && opts.v1 !== 'off') throw UsageError.invalidField('v1', `must be on or off, got "${opts.v1}"`);
  if (opts.v1Sunset === undefined) return { enabled: opts.v1 !== 'off' };
  const sunset = /^\d{4}-\d{2}-\d{2}(T.+)?$/.test(opts.v1Sunset) ? new Date(opts.v1Sunset) : new Date(NaN);
  if (Number.isNaN(sunset.getTime())) throw UsageError.invalidField('v1-sunset', `must be a date such as 2027-06-30 or an RFC 3339 time, got "${opts.v1Sunset}"`);
  return { enabled: opts.v1 !== 'off', sunset };
}

/** The delivery schedule and timeout flags as ServeOptions take them (absent: the server's defaults). */
async function eventFlags(opts: ServeCommandOptions): Promise<{ eventRetry?: import('../../../server/surfaces/events/deliverer.js').RetrySchedule; eventTimeoutMs?: number }> {
  const { parseMillis, FaultSpecError } = await import('../../../api/faults.js');
  const duration = (flag: string, raw: string) => {
    try {
      const ms = parseMillis(raw);
      if (ms >= 1) return ms;
    } catch (e) {
      if (!(e instanceof FaultSpecError)) throw e;
    }
    throw UsageError.invalidField(flag, `must be a duration from 1ms to 600s, such as 20ms or 2s, got "${raw}"`);
  };
  const out: { eventRetry?: import('../../../server/surfaces/events/deliverer.js').RetrySchedule; eventTimeoutMs?: number } = {};
  if (opts.eventRetry !== undefined || opts.eventAttempts !== undefined) {
    const { DEFAULT_RETRY } = await import('../../../server/surfaces/events/deliverer.js');
    const baseMs = opts.eventRetry === undefined ? DEFAULT_RETRY.baseMs : duration('event-retry', opts.eventRetry);
    const attempts = opts.eventAttempts === undefined ? DEFAULT_RETRY.attempts : Number(opts.eventAttempts);
    if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100) throw UsageError.invalidField('event-attempts', 'must be a whole number from 1 to 100');
    out.eventRetry = { baseMs, maxDelayMs: baseMs * 300, attempts };
  }
  if (opts.eventTimeout !== undefined) out.eventTimeoutMs = duration('event-timeout', opts.eventTimeout);
  return out;
}

const HTTP2_PHASES = { preface: 'prefaceMs', headers: 'headersMs', body: 'bodyMs', idle: 'idleMs' } as const;

/** `--http2-timeouts preface=10s,idle=30s` as the deadlines it names (the others stay the server's defaults). */
async function http2Timeouts(raw: string | undefined): Promise<Partial<Record<(typeof HTTP2_PHASES)[keyof typeof HTTP2_PHASES], number>> | undefined> {
  if (raw === undefined) return undefined;
  const { parseMillis, FaultSpecError } = await import('../../../api/faults.js');
  const out: Partial<Record<(typeof HTTP2_PHASES)[keyof typeof HTTP2_PHASES], number>> = {};
  for (const part of raw.split(',')) {
    const [name = '', value = ''] = part.split('=', 2);
    const key = HTTP2_PHASES[name.trim() as keyof typeof HTTP2_PHASES] as (typeof HTTP2_PHASES)[keyof typeof HTTP2_PHASES] | undefined;
    let ms = NaN;
    try {
      ms = parseMillis(value.trim());
    } catch (e) {
      if (!(e instanceof FaultSpecError)) throw e;
    }
    if (!key || !(ms >= 1)) throw UsageError.invalidField('http2-timeouts', `must be a list of preface=, headers=, body= or idle= with a duration such as 10s or 500ms, got "${part}"`);
    out[key] = ms;
  }
  return out;
}

/** `--fault` and `--latency` as rules; a usage error names the bad one. */
async function faultFlags(opts: ServeCommandOptions): Promise<import('../../../api/faults.js').FaultRule[]> {
  const { FaultSpecError, parseFaultSpec, parseLatencyFlag } = await import('../../../api/faults.js');
  const parse = (flag: string, value: string, parser: (v: string) => import('../../../api/faults.js').FaultRule) => {
    try {
      return parser(value);
    } catch (e) {
      if (e instanceof FaultSpecError) throw UsageError.invalidField(flag, `${e.message} (in "${value}")`);
      throw e;
    }
  };
  return [
    ...(opts.latency === undefined ? [] : [parse('latency', opts.latency, parseLatencyFlag)]),
    ...(opts.fault ?? []).map((f) => parse('fault', f, parseFaultSpec)),
  ];
}

function journalSize(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 1_000_000) throw UsageError.invalidField('journal', 'must be a whole number of requests, 0 to 1000000');
  return n;
}

function deterministicSeed(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw UsageError.invalidField('deterministic', `must be a whole number (the seed), got "${raw}"`);
  return n;
}

/** `--owner-token-ttl` (or `serve token --ttl`, `--mcp-session-idle`) in seconds: a duration up to the longest token lifetime serve accepts. */
export async function tokenTtlSeconds(raw: string, flag: string): Promise<number> {
  const { parseTtl, MAX_TOKEN_TTL_S } = await import('../../../server/auth/tokens.js');
  const seconds = parseTtl(raw);
  if (!seconds) throw UsageError.invalidField(flag, 'must be a duration such as 30m, 12h or 7d');
  if (seconds > MAX_TOKEN_TTL_S) throw UsageError.invalidField(flag, `must be at most ${MAX_TOKEN_TTL_S / 86400}d (the longest lifetime serve accepts)`);
  return seconds;
}

/** Reads each `--trust-issuer URL=JWKS_FILE` into issuer URL → JWKS; a usage error names a bad one. */
async function trustedIssuers(values: string[] = []): Promise<Record<string, { keys: Record<string, unknown>[] }>> {
  const { readFileSync } = await import('node:fs');
  const out: Record<string, { keys: Record<string, unknown>[] }> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    const issuer = value.slice(0, eq);
    const file = value.slice(eq + 1);
    if (eq < 1 || !file || !URL.canParse(issuer)) throw UsageError.invalidField('trust-issuer', `must be ISSUER_URL=JWKS_FILE, got "${value}"`);
    let jwks: unknown;
    try {
      jwks = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw UsageError.invalidField('trust-issuer', `cannot read a JWKS from ${file}: ${(e as Error).message}`);
    }
    const keys = (jwks as { keys?: unknown }).keys;
    if (!Array.isArray(keys) || !keys.length) throw UsageError.invalidField('trust-issuer', `${file} is not a JWKS (an object with a non-empty "keys" array)`);
    out[issuer] = { keys: keys as Record<string, unknown>[] };
  }
  return out;
}

/** The data dir: --data, then PCTL_DATA_DIR, then the platform's data dir for pctl. */
export async function resolveDataDir(ctx: Context, data?: string): Promise<string> {
  return data || ctx.env.PCTL_DATA_DIR || defaultDataDir();
}

/** The platform's data dir for pctl (~/.local/share/pctl on Linux): the one `local` stands for. */
async function defaultDataDir(): Promise<string> {
  const { default: envPaths } = await import('env-paths');
  return envPaths('pctl', { suffix: '' }).data;
}

/** `--rate-limit` as ServeOptions takes it; undefined (the server's default) when not given. */
async function parseRateLimitFlag(raw: string | undefined): Promise<import('../../../server/pipeline/ratelimit.js').Limits | undefined> {
  if (raw === undefined) return undefined;
  const { parseRateLimit, RateLimitSyntaxError } = await import('../../../server/pipeline/ratelimit.js');
  try {
    return parseRateLimit(raw);
  } catch (e) {
    if (e instanceof RateLimitSyntaxError) throw UsageError.invalidField('rate-limit', e.message);
    throw e;
  }
}

async function describeRateLimit(rateLimit: import('../../../server/pipeline/ratelimit.js').Limits | undefined): Promise<string> {
  if (rateLimit === 'off') return 'Rate limit: off';
  const { DEFAULT_FAIR_QUEUING, formatRateLimit } = await import('../../../server/pipeline/ratelimit.js');
  const limits = rateLimit ?? DEFAULT_FAIR_QUEUING;
  if ('windowSeconds' in limits) return `Rate limit: ${formatRateLimit(limits)} per caller`;
  return `Rate limit: fair queuing, ${limits.perCaller} requests at once per caller and ${limits.queue} more waiting${rateLimit ? '' : ' (the default; --rate-limit RATE/UNIT emulates the API\'s rate limits, --rate-limit off removes all limits)'}`;
}

function parsePort(raw: string | number | undefined): number {
  if (raw === undefined) return 8700;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw UsageError.invalidField('port', 'must be an integer from 0 to 65535');
  return port;
}

/** A seed error as the CLI reports it: exit 2, one field violation per bad entry. */
async function seedUsageError(e: unknown, what: string): Promise<UsageError | undefined> {
  const { SeedValidationError, DataDirNotEmptyError } = await import('../../../server/data/seed.js');
  if (e instanceof SeedValidationError) {
    const n = e.violations.length;
    return new UsageError(`${what} is invalid (${n} problem${n === 1 ? '' : 's'}); nothing was written`, e.violations);
  }
  if (e instanceof DataDirNotEmptyError) {
    return new UsageError(`${e.dataDir} already holds data, and --seed loads only into an empty data dir; to start over run: pctl serve reset --data ${e.dataDir} --yes`);
  }
  return undefined;
}

/** Reads and validates a seed file (YAML or JSON) before anything is started or written. */
export async function readSeedFile(file: string): Promise<import('../../../server/data/seed.js').SeedDocument> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw UsageError.invalidField('--seed', code === 'ENOENT' ? `no such file: ${file}` : `cannot read ${file}: ${(e as Error).message}`);
  }
  const { parseSeedText } = await import('../../../server/data/seed.js');
  try {
    return await parseSeedText(text);
  } catch (e) {
    throw (await seedUsageError(e, `seed file ${file}`)) ?? e;
  }
}

/** A PostgreSQL URL, checked before anything starts; '' (an empty PCTL_DATABASE_URL) is none. */
function databaseUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw UsageError.invalidField('--database', 'must be a URL such as postgres://USER@HOST:PORT/DATABASE');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw UsageError.invalidField('--database', `must be a postgres:// URL, got ${url.protocol}// (the SQLite store needs no URL: use --data DIR)`);
  }
  return raw;
}

/** An http(s) origin, without a trailing slash: what tokens name as their issuer. */
function parsePublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw UsageError.invalidField('--public-url', 'must be a URL such as https://pctl.example.com');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password || (url.pathname !== '/' && url.pathname !== '')) {
    throw UsageError.invalidField('--public-url', 'must be an http:// or https:// origin (scheme, host and port; no path, query or credentials)');
  }
  return url.origin;
}

/** `--audience`: any non-empty text without spaces or commas (a list of them is what aud is). */
function audienceFlag(raw: string): string {
  if (!raw || /[\s,]/.test(raw)) throw UsageError.invalidField('--audience', `must be one audience (a URL or a name, no spaces or commas), got "${raw}"`);
  return raw;
}

export async function runServe(ctx: Context, opts: ServeCommandOptions): Promise<number> {
  const port = parsePort(opts.port);
  if (opts.seed && opts.demo) throw new UsageError('--seed and --demo cannot be used together');
  const ownerTokenTtlSeconds = opts.ownerTokenTtl === undefined ? undefined : await tokenTtlSeconds(opts.ownerTokenTtl, 'owner-token-ttl');
  const mcpSessionIdleSeconds = opts.mcpSessionIdle === undefined ? undefined : await tokenTtlSeconds(opts.mcpSessionIdle, 'mcp-session-idle');
  const dataDir = await resolveDataDir(ctx, opts.data);
  // The seed is read and validated before the data dir is touched; the file is only ever read.
  const seed = opts.seed ? await readSeedFile(opts.seed) : opts.demo ? (await import('../../../server/data/demo.js')).demoSeed() : undefined;
  const rateLimit = await parseRateLimitFlag(opts.rateLimit);
  const faults = await faultFlags(opts);
  const journal = journalSize(opts.journal);
  const events = await eventFlags(opts);
  const h2Timeouts = await http2Timeouts(opts.http2Timeouts);
  if (opts.http2 !== undefined && opts.http2 !== 'own' && opts.http2 !== 'node') throw UsageError.invalidField('http2', `must be own or node, got "${opts.http2}"`);
  const deterministic = deterministicSeed(opts.deterministic);
  const v1 = v1Flags(opts);
  // An empty PCTL_DATABASE_URL is unset, as shells leave it; an empty --database is a mistake.
  if (opts.database === '') throw UsageError.invalidField('--database', 'must not be empty: give a postgres:// URL, or leave the flag out for SQLite in the data dir');
  const database = databaseUrl(opts.database ?? ctx.env.PCTL_DATABASE_URL);
  const publicUrl = opts.publicUrl === undefined ? undefined : parsePublicUrl(opts.publicUrl);
  const { startServer } = await import('../../../server/index.js');
  const { DataDirLockedError } = await import('../../../server/data/lock.js');
  const err = (line: string) => ctx.io.stderr.write(`${line}\n`);

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      dataDir,
      ...(database ? { database } : {}),
      ...(publicUrl ? { publicUrl } : {}),
      host: opts.host ?? '127.0.0.1',
      port,
      ...(opts.log ? { log: err } : {}),
      ...(rateLimit ? { rateLimit } : {}),
      trustedIssuers: await trustedIssuers(opts.trustIssuer),
      ...(opts.audience?.length ? { audiences: opts.audience.map(audienceFlag) } : {}),
      ...(opts.trustTestIssuers ? { trustTestIssuers: true } : {}),
      ...(ownerTokenTtlSeconds ? { ownerTokenTtlSeconds } : {}),
      faults,
      ...(journal !== undefined ? { journalSize: journal } : {}),
      ...events,
      ...(h2Timeouts ? { http2Timeouts: h2Timeouts } : {}),
      ...(opts.http2 === 'node' ? { http2: 'node' as const } : {}),
      ...(opts.allowPrivateSinks ? { allowPrivateSinks: true } : {}),
      ...(deterministic !== undefined ? { deterministic } : {}),
      ...(opts.mcpWrites ? { mcpWrites: true } : {}),
      ...(mcpSessionIdleSeconds ? { mcpSessionIdleMs: mcpSessionIdleSeconds * 1000 } : {}),
      v1,
      ...(seed ? { seed, seedIfNotEmpty: opts.demo ? ('keep' as const) : ('error' as const) } : {}),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const usage = await seedUsageError(e, opts.demo ? 'the demo data set' : `seed file ${opts.seed}`);
    if (usage) throw usage;
    if (e instanceof DataDirLockedError) throw new Error(e.message, { cause: e });
    const syscall = (e as NodeJS.ErrnoException).syscall;
    if (syscall === 'listen' && code === 'EADDRINUSE') throw new Error(`port ${port} on ${opts.host ?? '127.0.0.1'} is already in use; pass --port 0 to pick a free one`, { cause: e });
    if (syscall === 'listen' && code === 'EACCES') throw new Error(`not allowed to listen on port ${port}; pick a port above 1023`, { cause: e });
    if (syscall === 'listen' && code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${opts.host}: no such address on this machine`, { cause: e });
    const storage = await dataDirProblem(e, dataDir);
    if (storage) throw new Error(storage, { cause: e });
    throw e;
  }

  // The handlers go in before anything is printed: a script that reads the URL (or "Press
  // Ctrl-C") and sends SIGTERM at once must not find node's default (exit by signal) in place.
  // They stay in place while shutting down (closing takes at most 2 s): conf's atomic writes
  // (when-exit) answer a signal by sending it again, which would otherwise find no handler
  // and kill the process mid-close.
  let stopping = false;
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      err(`${signal}: shutting down`);
      void server.close().then(resolve);
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
  // The default data dir registers the `local` profile, so `pctl …` in another terminal just
  // works; a scratch server (another --data) saves a profile only when --profile names one,
  // so that it never takes `local` from the server people use day to day.
  const profileName = ctx.globals.profile ?? (resolve(dataDir) === resolve(await defaultDataDir()) ? 'local' : undefined);
  let current: string | undefined;
  if (profileName) {
    const { saveProfile } = await import('../../../config/index.js');
    ({ current } = saveProfile(profileName, { apiUrl: server.url, token: server.ownerToken }, {
      makeCurrentIfNone: true,
      ...(ctx.env.PCTL_CONFIG_DIR ? { configDir: ctx.env.PCTL_CONFIG_DIR } : {}),
    }));
  }

  const { redactDatabaseUrl } = await import('../../../server/store/shared.js');
  ctx.io.stdout.write(`pctl serve listening on ${server.url} (data: ${database ? redactDatabaseUrl(database) : dataDir})\n`);
  if (opts.demo && !server.seeded) err(`Notice: ${dataDir} already holds data; starting with it as it is (the demo data set loads only into an empty data dir; pctl serve reset --data ${dataDir} --yes empties it).`);
  else if (server.seeded) err(`Loaded ${opts.demo ? 'the demo data set' : `seed file ${opts.seed}`}.`);
  err(`Organization ${server.organizationUid}; owner token in ${join(dataDir, 'owner.token')}`);
  err(await describeRateLimit(rateLimit));
  if (opts.trustTestIssuers) {
    err('TEST ISSUERS TRUSTED (--trust-test-issuers): the token exchange takes tokens of any issuer signed with this serve\'s key (pctl serve token --as-issuer); for tests only, never where others can reach this serve.');
  }
  err(`MCP: ${server.url}/mcp (Streamable HTTP, bearer token required; ${opts.mcpWrites ? 'write tools on' : 'read-only: --mcp-writes adds the write tools'})`);
  err(v1.enabled
    ? `v1 API: answered beside v2, marked deprecated${v1.sunset ? `, sunset ${v1.sunset.toUTCString()}` : ''} (pctl serve v1-callers shows who still calls it)`
    : 'v1 API: off (every v1 call answers 410 Gone)');
  if (deterministic !== undefined) {
    const { DETERMINISTIC_START_MS, DETERMINISTIC_STEP_MS } = await import('../../../server/pipeline/deterministic.js');
    err(`Deterministic (seed ${deterministic}): the clock started at ${new Date(DETERMINISTIC_START_MS).toISOString()} and moves ${DETERMINISTIC_STEP_MS / 1000}s per request; uids and codes follow from the seed (predictable: keep this server to yourself).`);
  }
  if (faults.length) {
    const { formatFaultRule } = await import('../../../api/faults.js');
    for (const rule of server.faults.list()) err(`Fault ${rule.id}: ${formatFaultRule(rule)} (pctl serve faults clear removes it)`);
  }
  if (!profileName) {
    err(`No profile saved (only the default data dir updates "local"; add --profile NAME to save one). Try, in another terminal:`);
  } else {
    err(current === profileName
      ? `Profile "${profileName}" points at it (and is the current profile). Try, in another terminal:`
      : `Profile "${profileName}" points at it; the current profile is "${current}", so run \`pctl config use ${profileName}\` or add --profile ${profileName}. Try, in another terminal:`);
  }
  err(`  pctl groups list                  # or: PCTL_API_URL=${server.url} PCTL_TOKEN=$(cat ${join(dataDir, 'owner.token')}) pctl groups list`);
  err(`  pctl groups list --descendants-of ${server.organizationUid}`);
  if (seed) {
    err(`  pctl repos list --descendants-of ${server.organizationUid}`);
    err("  pctl advisories list");
  }
  // The same API over gRPC, gRPC-Web and Connect on this port; reflection needs no token.
  err(`  grpcurl -plaintext -H "authorization: Bearer $(cat ${join(dataDir, 'owner.token')})" ${server.url.replace(/^http:\/\//, '')} chainguard.platform.iam.v2.GroupsService/ListGroups`);
  err('Press Ctrl-C to stop.');
  await stopped;
  return 0;
}

/** A start that failed on the data dir's files, in words (read-only, not ours, full), or undefined. */
async function dataDirProblem(e: unknown, dataDir: string): Promise<string | undefined> {
  const why: Record<string, string> = {
    EACCES: 'permission denied', EPERM: 'permission denied', EROFS: 'the file system is read-only', ENOSPC: 'the disk is full',
    ENOENT: 'it cannot be created there', ENOTDIR: 'a file is in the way',
  };
  // SQLite's own failures are worded once, where the API words them for a request.
  const { storageProblem } = await import('../../../server/store/failure.js');
  const sqlite = storageProblem(e);
  const reason = sqlite ? `its database ${sqlite}` : why[(e as { code?: string }).code ?? ''];
  return reason ? `cannot use the data dir ${dataDir}: ${reason}; pass --data with a directory you can write` : undefined;
}

/** Prints the data of a data dir as a seed document (YAML), without the bootstrap owner. */
export async function runExport(ctx: Context, opts: { data?: string }): Promise<number> {
  const dataDir = await resolveDataDir(ctx, opts.data);
  if (!existsSync(join(dataDir, 'pctl.db'))) throw new Error(`${dataDir} holds no pctl data (no pctl.db); nothing to export`);
  const { Store } = await import('../../../server/store/store.js');
  const { exportSeed, seedToYaml } = await import('../../../server/data/seed-export.js');
  // Reading while a serve runs on the same dir is fine: SQLite WAL lets readers be.
  const store = new Store(dataDir);
  let doc;
  try {
    doc = store.transaction(() => exportSeed(store));
  } finally {
    await store.close();
  }
  ctx.io.stdout.write(await seedToYaml(doc));
  return 0;
}

/**
 * Empties a data dir (after confirmation), its snapshots too, and bootstraps it again: a new
 * organization, whose state a live reset then returns to; the owner token follows at the next start.
 */
export async function runReset(ctx: Context, opts: { data?: string; yes?: boolean }): Promise<number> {
  const dataDir = await resolveDataDir(ctx, opts.data);
  if (!existsSync(join(dataDir, 'pctl.db'))) {
    ctx.io.stderr.write(`${dataDir} holds no pctl data; nothing to reset\n`);
    return 0;
  }
  if (!(opts.yes || ctx.globals.yes)) {
    if (!ctx.io.stdinIsTTY) throw new UsageError(`refusing to erase ${dataDir} without confirmation; pass --yes`);
    if (!(await ctx.prompter.confirm(`Erase every resource and snapshot in ${dataDir}?`))) {
      ctx.io.stderr.write('Aborted.\n');
      return 2;
    }
  }
  const { lockDataDir, DataDirLockedError } = await import('../../../server/data/lock.js');
  const { Store } = await import('../../../server/store/store.js');
  const { bootstrap } = await import('../../../server/data/bootstrap.js');
  const { domainContext } = await import('../../../server/domain/context.js');
  const { Snapshots, snapshotsDir } = await import('../../../server/data/snapshots.js');
  const { systemRandom } = await import('../../../server/base/random.js');
  let unlock: () => void;
  try {
    unlock = lockDataDir(dataDir);
  } catch (e) {
    if (e instanceof DataDirLockedError) throw new Error(`${e.message} (stop it before reset)`, { cause: e });
    throw e;
  }
  let organization: string;
  try {
    let issuer = 'http://127.0.0.1:8700';
    const old = new Store(dataDir);
    try {
      issuer = old.getMeta('issuer') ?? issuer;
    } finally {
      await old.close();
    }
    // The signing key goes too, so tokens issued before the reset stop working.
    for (const file of ['pctl.db', 'pctl.db-wal', 'pctl.db-shm', 'owner.token', 'signing-key.jwk']) rmSync(join(dataDir, file), { force: true });
    rmSync(snapshotsDir(dataDir), { recursive: true, force: true });
    const store = new Store(dataDir);
    try {
      const clock = () => ctx.clock.now().getTime();
      await bootstrap(domainContext(store, clock, systemRandom), { issuer });
      await new Snapshots({ dataDir, store, clock }).saveInitial();
      organization = store.getMeta('organization')!;
    } finally {
      await store.close();
    }
  } finally {
    unlock();
  }
  ctx.io.stderr.write(`Erased ${dataDir} (its snapshots too) and bootstrapped it again: organization ${organization}; the next pctl serve writes a new owner token to ${join(dataDir, 'owner.token')}.\n`);
  return 0;
}
