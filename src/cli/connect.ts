// Resolves where to send requests and with which token: flags > env > profile.
//   base URL: --api-url, PCTL_API_URL, then the profile's apiUrl
//   token:    PCTL_TOKEN, then the profile's token (never a flag: flags leak into shell history)
//   profile:  --profile, PCTL_PROFILE, then the current profile
// A variable set but empty is a mistake, not "unset": `PCTL_TOKEN=$(cmd) pctl …` after cmd
// failed must not run as the profile's (often the owner's) token.
import type { Context } from './context.js';
import { NotFoundError, UsageError } from './errors.js';
import { ApiClient } from '../client/index.js';
import type { PageProgress } from '../client/paginate.js';
import { checkNotExpired, issuerOfApi, mapExpired, nearsExpiry, refreshTokenPair, tokenSourceLabel } from '../client/token.js';
import { ApiError } from '../api/errors.js';
import { readConfigFile } from '../config/file.js';

const PASS_THROUGH_FORMATS = new Set<string | undefined>(['json', 'yaml', 'ndjson']);

export interface Connection {
  apiUrl: string;
  token: string | undefined;
  profileName: string | undefined;
  /** The profile's refresh token, when its token came from the token exchange. */
  refreshToken?: string;
}

export async function resolveConnection(ctx: Context): Promise<Connection> {
  const explicitProfile = ctx.globals.profile || ctx.env.PCTL_PROFILE || undefined;
  let apiUrl = apiUrlOverride(ctx);
  let token = fromEnvironment(ctx.env, 'PCTL_TOKEN');
  let profileName: string | undefined;
  let refreshToken: string | undefined;

  // Only touch the config file when flags and env leave something open.
  if (explicitProfile || !apiUrl || !token) {
    const file = readConfigFile(ctx.env.PCTL_CONFIG_DIR);
    profileName = explicitProfile ?? (typeof file.currentProfile === 'string' && file.currentProfile ? file.currentProfile : undefined);
    if (profileName) {
      const profile = Object.hasOwn(file.profiles ?? {}, profileName) ? file.profiles?.[profileName] : undefined;
      if (profile) {
        apiUrl ??= profile.apiUrl;
        if (!token && profile.token) {
          token = profile.token;
          refreshToken = profile.refreshToken;
        }
      } else if (explicitProfile) {
        throw new NotFoundError(`Profile not found: "${profileName}" (see: pctl config list)`);
      }
    }
  }

  if (apiUrl === undefined) {
    throw new UsageError(
      'no API URL configured: start a local server with `pctl serve`, or set PCTL_API_URL, or pass --api-url, or save a profile with `pctl config set NAME api-url URL`',
    );
  }
  checkApiUrl(apiUrl);
  return { apiUrl, token, profileName, ...(refreshToken ? { refreshToken } : {}) };
}

/**
 * A profile's token near its expiry, renewed with its refresh token (saved with the new
 * refresh token: the old one is spent). When that fails the token is left as it is, and an
 * expired one gets the usual "run pctl auth login".
 */
async function refreshed(ctx: Context, conn: Connection): Promise<Connection> {
  if (!conn.refreshToken || !conn.token || !conn.profileName || !nearsExpiry(conn.token, ctx.clock.now().getTime())) return conn;
  const { clientFor } = await import('./shared/auth.js');
  try {
    const pair = await refreshTokenPair(clientFor(ctx, issuerOfApi(conn.apiUrl), conn.refreshToken), conn.apiUrl.replace(/\/+$/, ''));
    const store = await ctx.config();
    store.setProfile(conn.profileName, { apiUrl: conn.apiUrl, token: pair.token, ...(pair.refreshToken ? { refreshToken: pair.refreshToken } : {}) });
    return { ...conn, token: pair.token, ...(pair.refreshToken ? { refreshToken: pair.refreshToken } : {}) };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.io.stderr.write(`Could not refresh the token of profile ${conn.profileName}: ${err.message}\n`);
    return conn;
  }
}

/** A PCTL_* variable's value, or undefined when unset; set but empty (or blank) is a usage error. */
function fromEnvironment(env: Context['env'], name: 'PCTL_TOKEN' | 'PCTL_API_URL'): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  if (value.trim() === '') {
    throw new UsageError(`${name} is set but empty (did the command that set it fail?): give it a value, or unset it to use the profile's`);
  }
  return value;
}

/** The API URL that overrides the profile's: --api-url, else PCTL_API_URL (an empty flag is refused by checkApiUrl). */
export function apiUrlOverride(ctx: Context): string | undefined {
  return ctx.globals.apiUrl ?? fromEnvironment(ctx.env, 'PCTL_API_URL');
}

export function checkApiUrl(apiUrl: string): void {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw UsageError.invalidField('api-url', `must be an http or https URL, got "${apiUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw UsageError.invalidField('api-url', `must be an http or https URL, got "${apiUrl}"`);
  }
}

export async function connect(ctx: Context): Promise<ApiClient> {
  const conn = await refreshed(ctx, await resolveConnection(ctx));
  const trace = ctx.globals.debug ? (line: string) => void ctx.io.stderr.write(`${line}\n`) : undefined;
  if (trace) trace(`* api: ${conn.apiUrl}${conn.profileName ? ` (profile ${conn.profileName})` : ''}, token: ${conn.token ? 'set' : 'none'}`);
  // An expired token fails here, before any request, with a hint to sign in again.
  const fromEnv = Boolean(ctx.env.PCTL_TOKEN);
  const source = tokenSourceLabel(fromEnv, conn.profileName);
  if (conn.token) checkNotExpired(conn.token, ctx.clock.now().getTime(), source, fromEnv);
  const io = ctx.io;
  // Progress and retry notices share stderr with nothing else on a terminal: a notice first
  // erases a progress line, and progress is off while the trace is on (and off in pipes).
  const erase = io.stderrIsTTY ? '\r\x1b[K' : '';
  const showProgress = io.stderrIsTTY && io.stdoutIsTTY && !ctx.globals.debug;
  const sleep = ctx.clock.sleep?.bind(ctx.clock);
  return new ApiClient({
    baseUrl: conn.apiUrl,
    token: conn.token,
    timeoutMs: ctx.globals.timeoutMs,
    deadline: ctx.clock.deadline?.bind(ctx.clock),
    retries: ctx.globals.retries,
    notice: (line) => void io.stderr.write(`${erase}${line}\n`),
    ...(sleep ? { sleep } : {}),
    now: () => ctx.clock.now().getTime(),
    progress: showProgress ? (noun) => terminalProgress(io, noun) : undefined,
    trace,
    traceBodies: ctx.globals.debugBodies,
    userAgent: 'pctl',
    // Formats that print the server's JSON as it came need no schema check (nor zod's load).
    validate: !PASS_THROUGH_FORMATS.has(ctx.globals.output),
    mapError: (err) => mapExpired(err, source, fromEnv, conn.token, ctx.clock.now().getTime()),
  });
}

/** `fetched 400 of 1,234 groups…` on one line of a terminal's stderr, redrawn in place, erased when done. */
export function terminalProgress(io: Context['io'], noun: string): PageProgress {
  let shown = false;
  const n = (x: number) => x.toLocaleString('en-US');
  return {
    update(fetched, expected) {
      const of = expected !== undefined && Number.isFinite(expected) ? ` of ${n(expected)}` : '';
      io.stderr.write(`\r\x1b[Kfetched ${n(fetched)}${of} ${noun}…`);
      shown = true;
    },
    clear() {
      if (!shown) return;
      io.stderr.write('\r\x1b[K');
      shown = false;
    },
  };
}
