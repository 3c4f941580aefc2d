// pctl auth login [--no-browser] [--device] [--with-token]
// Browser sign-in: OIDC discovery at the API URL, then authorization code + PKCE (S256)
// with a one-shot loopback server on 127.0.0.1 receiving the answer (RFC 8252). The URL
// is always printed on stderr; the browser is opened unless --no-browser.
// --device signs in from a browser elsewhere (RFC 8628): a URL and a user code on stderr,
// then the token endpoint polled at the server's interval until approved, denied or expired.
// --with-token reads a token from stdin instead (CI), checks it against the API, saves it.
import type { FlagValues } from '../../command.js';
import type { loginFlags } from './index.js';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, Code } from '../../../api/errors.js';
import { defaultSleep } from '../../../client/retry.js';
import { decodeClaims, exchangeIdentityToken, expiresAt, issuerOfApi, type TokenPair } from '../../../client/token.js';
import type { Context } from '../../context.js';
import { NetworkError, ResponseError, UsageError } from '../../errors.js';
import {
  clientFor, describeIdentity, discover, exchangeCode, isoSeconds, loginTarget, notLoggedIn, oauthErrorText, postForm, saveLogin,
  tokenResponse, whoAmI, type Discovery, type FormAnswer, type TokenResponse,
} from '../../shared/auth.js';

/** How long to wait for the browser before giving up. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;
const CLIENT_ID = 'pctl';
const CALLBACK_PATH = '/callback';
export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.5: the poll interval when the server names none, and what each slow_down adds. */
const DEFAULT_POLL_INTERVAL_S = 5;
const SLOW_DOWN_STEP_S = 5;
/** However long a server says its device code lasts, pctl waits at most this long. */
export const MAX_DEVICE_WAIT_S = 30 * 60;
/** Polls that fail on the network (or 429, 5xx) in a row before giving up; each doubles the wait. */
const MAX_POLL_FAILURES = 3;

type LoginFlags = FlagValues<typeof loginFlags>;

export async function run(ctx: Context, _args: string[], opts: LoginFlags): Promise<number> {
  const store = await ctx.config();
  const target = loginTarget(ctx, store);
  const now = ctx.clock.now().getTime();

  let token: string;
  let refreshToken: string | undefined;
  if (opts.identity !== undefined && opts.identityToken === undefined) throw new UsageError('--identity goes with --identity-token');
  if (opts.identityToken !== undefined) {
    ({ token, refreshToken } = await identityTokenLogin(ctx, target.apiUrl, opts.identityToken, opts.identity));
  } else if (opts.withToken) {
    token = await ctx.prompter.readSecret('Token');
    if (!token) throw UsageError.invalidField('token', 'is empty: pass the token on stdin (pctl auth login --with-token < token-file)');
    if (/\s/.test(token)) throw UsageError.invalidField('token', 'must be a single line without spaces');
    const exp = expiresAt(token);
    if (exp !== undefined && exp <= now) throw notLoggedIn(`the token read from stdin expired at ${isoSeconds(exp)}; get a new one`);
  } else if (opts.device) {
    token = await deviceLogin(ctx, target.apiUrl);
  } else {
    token = await browserLogin(ctx, target.apiUrl, opts.browser !== false);
  }

  // Prove the token works before saving it: a refused token throws (exit 4) and nothing is saved.
  const who = await whoAmI(ctx, clientFor(ctx, target.apiUrl, token), token);
  saveLogin(ctx, store, target, token, refreshToken);
  const exp = expiresAt(token);
  ctx.io.stderr.write(
    `Logged in to ${target.apiUrl} as ${describeIdentity(who)}; token saved in profile "${target.profileName}"` +
      `${exp !== undefined ? `, valid until ${isoSeconds(exp)}` : ''}\n`,
  );
  return 0;
}

/** --identity-token FILE|-: the identity token exchanged at the API's issuer, for the API URL as audience. */
async function identityTokenLogin(ctx: Context, apiUrl: string, source: string, identity: string | undefined): Promise<TokenPair> {
  let idToken: string;
  if (source === '-') {
    idToken = await ctx.prompter.readSecret('Identity token');
  } else {
    const { readFileSync } = await import('node:fs');
    try {
      idToken = readFileSync(source, 'utf8').trim();
    } catch (err) {
      throw UsageError.invalidField('identity-token', `cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (!idToken) throw UsageError.invalidField('identity-token', `is empty: ${source === '-' ? 'pass the token on stdin' : `${source} holds no token`}`);
  if (/\s/.test(idToken)) throw UsageError.invalidField('identity-token', 'must be a single line without spaces');
  const audience = apiUrl.replace(/\/+$/, '');
  return exchangeIdentityToken(clientFor(ctx, issuerOfApi(apiUrl), idToken), audience, identity);
}

async function browserLogin(ctx: Context, apiUrl: string, openBrowser: boolean): Promise<string> {
  const disc = await discover(ctx, apiUrl);
  const verifier = randomBytes(48).toString('base64url'); // 64 characters
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(24).toString('base64url');
  const loopback = await startLoopback(state);
  try {
    const url = new URL(disc.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', CLIENT_ID);
    url.searchParams.set('redirect_uri', loopback.redirectUri);
    url.searchParams.set('scope', 'openid');
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    const authorizeUrl = url.toString();

    ctx.io.stderr.write(`${openBrowser ? 'Opening your browser to sign in. If it does not open, visit' : 'To sign in, open this URL in a browser'}:\n\n  ${authorizeUrl}\n\n`);
    if (openBrowser) await openInBrowser(ctx, authorizeUrl);
    ctx.io.stderr.write(`Waiting for the sign-in to finish (up to ${LOGIN_TIMEOUT_MS / 60_000} minutes; Ctrl-C to give up)…\n`);

    const code = await loopback.code;
    const tokens = await exchangeCode(ctx, disc.token_endpoint, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: loopback.redirectUri,
      client_id: CLIENT_ID,
      code_verifier: verifier,
    });
    return fromDiscoveredIssuer(tokens, disc, apiUrl);
  } finally {
    await loopback.close();
  }
}

/** The access token, once its issuer is the one discovered at the API URL. */
function fromDiscoveredIssuer(tokens: TokenResponse, disc: Discovery, apiUrl: string): string {
  const claims = decodeClaims(tokens.access_token);
  if (disc.issuer && claims?.iss && claims.iss !== disc.issuer) {
    throw notLoggedIn(`the token's issuer ${claims.iss} is not the one discovered at ${apiUrl} (${disc.issuer}); nothing was saved`);
  }
  return tokens.access_token;
}

interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete?: string;
  expiresInS: number;
  intervalS: number;
}

/**
 * The device authorization grant (RFC 8628): ask for a device code, show where to enter the
 * user code, then poll the token endpoint at the server's interval (5 s more after each
 * slow_down) until the sign-in is approved, denied, or the code expires. The waits run on
 * the context's clock, so tests move time instead of waiting for it.
 */
async function deviceLogin(ctx: Context, apiUrl: string): Promise<string> {
  const disc = await discover(ctx, apiUrl, 'device');
  const answer = await postForm(ctx, disc.device_authorization_endpoint!, { client_id: CLIENT_ID, scope: 'openid' }, {
    label: 'device authorization', hidden: 'form',
  });
  if (answer.status >= 400 || !answer.json) {
    throw new ApiError(Code.UNAUTHENTICATED, `the device sign-in could not start (${oauthErrorText(answer)}); nothing was saved`, {
      reason: 'DEVICE_AUTHORIZATION_FAILED', httpStatus: answer.status,
    });
  }
  const da = deviceAuthorization(answer.json);
  const sleep = ctx.clock.sleep ? ctx.clock.sleep.bind(ctx.clock) : defaultSleep;
  const waitS = Math.min(da.expiresInS, MAX_DEVICE_WAIT_S);
  const giveUpAt = ctx.clock.now().getTime() + waitS * 1000;

  ctx.io.stderr.write(
    `To sign in, open this URL in a browser on any device:\n\n  ${da.verificationUri}\n\nand enter the code:\n\n  ${da.userCode}\n\n` +
      (da.verificationUriComplete ? `Or open this URL, which holds the code (check that the page shows the same code):\n\n  ${da.verificationUriComplete}\n\n` : '') +
      `Waiting for the sign-in to be approved (the code expires in ${duration(waitS)}; Ctrl-C to give up)…\n`,
  );

  const expired = () =>
    new ApiError(Code.UNAUTHENTICATED, `the device code expired before the sign-in was approved (after ${duration(waitS)}); nothing was saved, run pctl auth login --device again`, {
      reason: 'LOGIN_TIMEOUT', httpStatus: 401,
    });
  let intervalS = da.intervalS;
  let failures = 0;
  for (;;) {
    await sleep(intervalS * 1000 * 2 ** failures);
    if (ctx.clock.now().getTime() >= giveUpAt) throw expired();
    let poll: FormAnswer;
    try {
      poll = await postForm(ctx, disc.token_endpoint, { grant_type: DEVICE_GRANT_TYPE, device_code: da.deviceCode, client_id: CLIENT_ID }, {
        label: 'token', hidden: 'device code',
      });
    } catch (err) {
      // RFC 8628 §3.5: back off on a connection failure and try again, a few times.
      if (!(err instanceof NetworkError) || ++failures > MAX_POLL_FAILURES) throw err;
      continue;
    }
    if (poll.status === 429 || poll.status >= 500) {
      if (++failures > MAX_POLL_FAILURES) {
        throw new ResponseError(`the token endpoint keeps failing (${oauthErrorText(poll)}); nothing was saved, run pctl auth login --device again`);
      }
      continue;
    }
    failures = 0;
    if (poll.status < 400 && poll.json) return fromDiscoveredIssuer(tokenResponse(poll.json), disc, apiUrl);
    const error = typeof poll.json?.error === 'string' ? poll.json.error : '';
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      intervalS += SLOW_DOWN_STEP_S;
      continue;
    }
    if (error === 'expired_token') throw expired();
    if (error === 'access_denied') throw notLoggedIn(`sign-in failed (${oauthErrorText(poll)}); nothing was saved`);
    throw new ApiError(Code.UNAUTHENTICATED, `sign-in failed at the token endpoint (${oauthErrorText(poll)}); run pctl auth login --device again`, {
      reason: 'TOKEN_EXCHANGE_FAILED', httpStatus: poll.status,
    });
  }
}

/** The device authorization answer (RFC 8628 §3.2), checked: what is printed must be a URL or a plain code. */
function deviceAuthorization(json: Record<string, unknown>): DeviceAuthorization {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const deviceCode = str(json.device_code);
  const userCode = str(json.user_code);
  if (!deviceCode) throw new ResponseError('the device authorization answer holds no device_code');
  if (!/^[\x21-\x7e]{1,64}$/.test(userCode)) throw new ResponseError('the device authorization answer holds no valid user_code');
  const url = (v: unknown): string | undefined => {
    const s = str(v);
    return /^https?:\/\//i.test(s) && URL.canParse(s) ? new URL(s).toString() : undefined;
  };
  const verificationUri = url(json.verification_uri);
  if (!verificationUri) throw new ResponseError('the device authorization answer holds no valid verification_uri');
  const out: DeviceAuthorization = {
    deviceCode,
    userCode,
    verificationUri,
    expiresInS: typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 600,
    intervalS: typeof json.interval === 'number' && json.interval >= 1 ? json.interval : DEFAULT_POLL_INTERVAL_S,
  };
  const complete = url(json.verification_uri_complete);
  if (complete) out.verificationUriComplete = complete;
  return out;
}

/** `10 minutes`, `90 seconds`. */
function duration(seconds: number): string {
  if (seconds >= 120 && seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${Math.round(seconds)} seconds`;
}

async function openInBrowser(ctx: Context, url: string): Promise<void> {
  try {
    const { default: open } = await import('open');
    const child = await open(url);
    child.on('error', () => void ctx.io.stderr.write('Could not open a browser: open the URL above yourself.\n'));
  } catch {
    ctx.io.stderr.write('Could not open a browser: open the URL above yourself.\n');
  }
}

interface Loopback {
  redirectUri: string;
  /** Resolves with the authorization code once the browser comes back with the right state. */
  code: Promise<string>;
  close(): Promise<void>;
}

/** A one-shot HTTP server on 127.0.0.1:0 that waits for the authorization answer. */
async function startLoopback(expectedState: string): Promise<Loopback> {
  let settle!: { resolve: (code: string) => void; reject: (err: Error) => void };
  let done = false;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const finish = (outcome: { code: string } | { error: Error }) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    if ('code' in outcome) settle.resolve(outcome.code);
    else settle.reject(outcome.error);
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      page(res, 404, 'Not found', 'This is pctl waiting for a sign-in answer.');
      return;
    }
    if (done) {
      page(res, 410, 'Sign-in finished', 'This sign-in is already over. You can close this tab.');
      return;
    }
    const q = url.searchParams;
    const state = q.get('state') ?? '';
    if (state !== expectedState) {
      page(res, 400, 'Sign-in refused', 'The answer does not belong to this sign-in (state mismatch). Run pctl auth login again.');
      finish({ error: notLoggedIn('the sign-in answer does not match this login (state mismatch: a stale or forged callback); nothing was saved, run pctl auth login again') });
      return;
    }
    const error = q.get('error');
    if (error) {
      const description = q.get('error_description');
      page(res, 400, 'Sign-in failed', `${error}${description ? `: ${description}` : ''}. You can close this tab.`);
      finish({ error: notLoggedIn(`sign-in failed (${error}${description ? `: ${description}` : ''}); nothing was saved`) });
      return;
    }
    const got = q.get('code');
    if (!got) {
      page(res, 400, 'Sign-in failed', 'The answer holds no authorization code. Run pctl auth login again.');
      finish({ error: notLoggedIn('the sign-in answer held no authorization code; run pctl auth login again') });
      return;
    }
    page(res, 200, 'Signed in', 'pctl has what it needs. You can close this tab and return to the terminal.');
    finish({ code: got });
  });
  server.keepAliveTimeout = 1000;

  const timer = setTimeout(
    () => finish({ error: new ApiError(Code.UNAUTHENTICATED, `no sign-in within ${LOGIN_TIMEOUT_MS / 60_000} minutes; run pctl auth login again`, { reason: 'LOGIN_TIMEOUT', httpStatus: 401 }) }),
    LOGIN_TIMEOUT_MS,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    code,
    close: () =>
      new Promise<void>((resolve) => {
        finish({ error: notLoggedIn('the sign-in was abandoned') });
        code.catch(() => undefined);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function page(res: http.ServerResponse, status: number, title: string, message: string): void {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pctl: ${esc(title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><h1>${esc(title)}</h1><p>${esc(message)}</p></body></html>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    connection: 'close',
  });
  res.end(body);
}

function esc(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}
