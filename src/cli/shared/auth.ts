// What the `auth` verbs share: where to sign in and which profile to save into, OIDC
// discovery, the token exchange, and "who am I" for a token. Tokens are never printed or
// traced (the trace shows request lines and statuses only).
import { ApiError, Code } from '../../api/errors.js';
import { ApiClient } from '../../client/index.js';
import { agents } from '../../client/http.js';
import { exchange } from '../../client/transport.js';
import { apiUrlOverride, checkApiUrl } from '../connect.js';
import { decodeClaims } from '../../client/token.js';
import { PROFILE_NAME_RE, type ConfigStore } from '../../config/index.js';
import { deadlineSignal, type Context } from '../context.js';
import { NetworkError, ResponseError, UsageError } from '../errors.js';

export interface Discovery {
  issuer: string;
  /** '' when discovered for the device flow and the issuer has none. */
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint?: string;
  /** RFC 8628; always set when discovered for the device flow. */
  device_authorization_endpoint?: string;
}

export interface WhoAmI {
  iss?: string;
  sub?: string;
  identity?: { uid: string; name: string };
}

export interface LoginTarget {
  apiUrl: string;
  profileName: string;
}

export function notLoggedIn(message: string): ApiError {
  return new ApiError(Code.UNAUTHENTICATED, message, { reason: 'NOT_LOGGED_IN', httpStatus: 401 });
}

function trace(ctx: Context): ((line: string) => void) | undefined {
  return ctx.globals.debug ? (line: string) => void ctx.io.stderr.write(`${line}\n`) : undefined;
}

/** An API client for a given base URL and token (not the invocation's own: login makes new tokens). */
export function clientFor(ctx: Context, apiUrl: string, token?: string): ApiClient {
  return new ApiClient({
    baseUrl: apiUrl, token, timeoutMs: ctx.globals.timeoutMs, deadline: ctx.clock.deadline?.bind(ctx.clock), trace: trace(ctx), userAgent: 'pctl',
  });
}

const normalize = (url: string) => url.replace(/\/+$/, '');

/**
 * Where `auth login` signs in and which profile it saves into: --profile/PCTL_PROFILE when
 * given; else the current profile (unless --api-url points elsewhere); else a profile that
 * already has this URL; else a new profile named after the host.
 */
export function loginTarget(ctx: Context, store: ConfigStore): LoginTarget {
  const explicit = ctx.globals.profile || ctx.env.PCTL_PROFILE || undefined;
  const override = apiUrlOverride(ctx);
  if (override !== undefined) checkApiUrl(override);
  if (explicit) {
    if (!PROFILE_NAME_RE.test(explicit)) {
      throw UsageError.invalidField('profile', 'must start with a letter or digit and hold only letters, digits, ".", "_" and "-" (at most 63)');
    }
    const apiUrl = override ?? store.profile(explicit)?.apiUrl;
    if (!apiUrl) throw new UsageError(`profile "${explicit}" has no API URL: pass --api-url URL`);
    return { apiUrl: normalize(apiUrl), profileName: explicit };
  }
  const current = store.currentProfileName();
  const currentProfile = current ? store.profile(current) : undefined;
  if (current && currentProfile && (!override || normalize(override) === normalize(currentProfile.apiUrl))) {
    return { apiUrl: normalize(currentProfile.apiUrl), profileName: current };
  }
  if (!override) {
    throw new UsageError('no API URL to sign in to: pass --api-url URL (or set PCTL_API_URL), or start a local server with `pctl serve`');
  }
  const apiUrl = normalize(override);
  const same = Object.entries(store.profiles()).find(([, p]) => normalize(p.apiUrl) === apiUrl);
  if (same) return { apiUrl, profileName: same[0] };
  const url = new URL(apiUrl);
  let name = url.hostname.replace(/^\[|\]$/g, '').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 50) || 'default';
  const taken = store.profile(name);
  if (taken && normalize(taken.apiUrl) !== apiUrl) name = `${name}-${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  return { apiUrl, profileName: name };
}

/** Saves the token into the profile; the profile becomes current when none is. */
export function saveLogin(ctx: Context, store: ConfigStore, target: LoginTarget, token: string, refreshToken?: string): void {
  store.setProfile(target.profileName, { apiUrl: target.apiUrl, token, ...(refreshToken ? { refreshToken } : {}) });
  const current = store.currentProfileName();
  if (!current || !store.profile(current)) store.useProfile(target.profileName);
  if (store.currentProfileName() !== target.profileName) {
    ctx.io.stderr.write(`Profile "${target.profileName}" is not the current one: use --profile ${target.profileName}, or pctl config use ${target.profileName}\n`);
  }
  if (ctx.env.PCTL_TOKEN) ctx.io.stderr.write('Note: PCTL_TOKEN is set and overrides the saved token; unset it to use the new one\n');
}

function httpUrl(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value) || !URL.canParse(value)) {
    throw new ResponseError(`the OpenID configuration has no valid ${field}`);
  }
  return value;
}

/**
 * `<api-url>/.well-known/openid-configuration`: where to sign in. `flow` says which endpoints
 * must be there: the authorization endpoint (with PKCE S256) for the browser, the device
 * authorization endpoint for `--device`.
 */
export async function discover(ctx: Context, apiUrl: string, flow: 'browser' | 'device' = 'browser'): Promise<Discovery> {
  let doc: Record<string, unknown>;
  try {
    doc = ((await clientFor(ctx, apiUrl).request('GET', '/.well-known/openid-configuration')) ?? {}) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ApiError && err.code === Code.NOT_FOUND) {
      throw new ResponseError(`${apiUrl} offers no OpenID configuration (/.well-known/openid-configuration): sign in with pctl auth login --with-token instead`);
    }
    throw err;
  }
  if (typeof doc !== 'object' || doc === null) throw new ResponseError('the OpenID configuration is not a JSON object');
  if (flow === 'device' && doc.device_authorization_endpoint === undefined) {
    throw new ResponseError(`the issuer at ${apiUrl} offers no device sign-in (no device_authorization_endpoint): sign in with pctl auth login (a browser) or --with-token instead`);
  }
  const out: Discovery = {
    issuer: typeof doc.issuer === 'string' ? doc.issuer : '',
    authorization_endpoint:
      flow === 'browser' ? httpUrl(doc.authorization_endpoint, 'authorization_endpoint') : typeof doc.authorization_endpoint === 'string' ? doc.authorization_endpoint : '',
    token_endpoint: httpUrl(doc.token_endpoint, 'token_endpoint'),
  };
  if (typeof doc.userinfo_endpoint === 'string') out.userinfo_endpoint = doc.userinfo_endpoint;
  if (flow === 'device') {
    out.device_authorization_endpoint = httpUrl(doc.device_authorization_endpoint, 'device_authorization_endpoint');
    return out;
  }
  const methods = doc.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes('S256')) throw new ResponseError('the issuer does not support PKCE with S256');
  return out;
}

export interface TokenResponse {
  access_token: string;
  id_token?: string;
  token_type: string;
  expires_in?: number;
}

export interface FormAnswer {
  status: number;
  /** The JSON object answered, if the body is one. */
  json: Record<string, unknown> | undefined;
}

/**
 * POSTs a form to an OAuth endpoint and reads its JSON answer, whatever the status. The
 * trace shows the request line and the status only (`hidden` says what is not shown): the
 * form and the answer may hold codes and tokens.
 */
export async function postForm(
  ctx: Context, endpoint: string, params: Record<string, string>, what: { label: string; hidden: string },
): Promise<FormAnswer> {
  const t = trace(ctx);
  const body = new URLSearchParams(params).toString();
  t?.(`> POST ${endpoint}`);
  t?.(`> content-type: application/x-www-form-urlencoded (${what.hidden} not shown)`);
  let status: number;
  let text: string;
  try {
    const res = await exchange(agents(), endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': 'pctl' },
      body,
      signal: deadlineSignal(ctx.clock, ctx.globals.timeoutMs),
    });
    status = res.status;
    text = res.text;
  } catch (err) {
    throw new NetworkError(`the ${what.label} request to ${new URL(endpoint).origin} failed: ${(err as Error).message}`, { cause: err });
  }
  t?.(`< ${status} (${text.length} bytes, not shown: it may hold codes or tokens)`);
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    json = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  return { status, json };
}

/** `invalid_grant: the code expired`, from an OAuth error answer (RFC 6749 §5.2), or `HTTP 502`. */
export function oauthErrorText(answer: FormAnswer): string {
  const error = typeof answer.json?.error === 'string' ? answer.json.error : `HTTP ${answer.status}`;
  const description = typeof answer.json?.error_description === 'string' ? `: ${answer.json.error_description}` : '';
  return `${error}${description}`;
}

/** The tokens of a successful token answer; a ResponseError when it holds no Bearer access token. */
export function tokenResponse(json: Record<string, unknown>): TokenResponse {
  if (typeof json.access_token !== 'string' || !json.access_token) throw new ResponseError('the token endpoint answered without an access_token');
  if (typeof json.token_type === 'string' && json.token_type.toLowerCase() !== 'bearer') {
    throw new ResponseError(`the token endpoint handed out a ${json.token_type} token; pctl needs a Bearer token`);
  }
  return json as unknown as TokenResponse;
}

/** POSTs the authorization code + PKCE verifier to the token endpoint. */
export async function exchangeCode(
  ctx: Context, tokenEndpoint: string, params: Record<string, string>,
): Promise<TokenResponse> {
  const answer = await postForm(ctx, tokenEndpoint, params, { label: 'token', hidden: 'code and verifier' });
  const { status, json } = answer;
  if (status >= 400 || !json) {
    throw new ApiError(Code.UNAUTHENTICATED, `sign-in failed at the token endpoint (${oauthErrorText(answer)}); run pctl auth login again`, {
      reason: 'TOKEN_EXCHANGE_FAILED', httpStatus: status,
    });
  }
  return tokenResponse(json);
}

/**
 * Who a token belongs to, as the API sees it: the issuer's userinfo when it is on the API's
 * own origin (the token is never sent elsewhere), otherwise a one-item list proves the
 * token works and the claims say who it is. A refused token throws (code 16, exit 4).
 */
export async function whoAmI(ctx: Context, client: ApiClient, token: string): Promise<WhoAmI> {
  const claims = decodeClaims(token) ?? {};
  const base: WhoAmI = {};
  if (claims.iss) base.iss = claims.iss;
  if (claims.sub) base.sub = claims.sub;
  // Auth/Validate (GET /auth/v1/ok): the published WhoAmI, where the API answers it.
  let validated = false;
  try {
    const v = (await client.request('GET', '/auth/v1/ok')) as { issuer?: unknown; subject?: unknown } | undefined;
    if (typeof v?.issuer === 'string' && v.issuer) base.iss = v.issuer;
    if (typeof v?.subject === 'string' && v.subject) base.sub = v.subject;
    validated = true;
  } catch (err) {
    if (!(err instanceof ApiError) || (err.code !== Code.NOT_FOUND && err.code !== Code.UNIMPLEMENTED)) throw err;
  }
  let userinfo: string | undefined;
  try {
    const doc = (await clientFor(ctx, client.baseUrl).request('GET', '/.well-known/openid-configuration')) as Record<string, unknown> | undefined;
    if (typeof doc?.userinfo_endpoint === 'string' && URL.canParse(doc.userinfo_endpoint)) userinfo = doc.userinfo_endpoint;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
  }
  const baseUrl = new URL(client.baseUrl);
  const info = userinfo ? new URL(userinfo) : undefined;
  if (info && info.origin === baseUrl.origin) {
    const prefix = baseUrl.pathname.replace(/\/+$/, '');
    const path = info.pathname.startsWith(prefix) ? info.pathname.slice(prefix.length) : info.pathname;
    const body = (await client.request('GET', path + info.search)) as Record<string, unknown> | undefined;
    const out: WhoAmI = { ...base };
    if (typeof body?.iss === 'string' && !validated) out.iss = body.iss;
    if (typeof body?.sub === 'string' && !validated) out.sub = body.sub;
    const identity = body?.identity as { uid?: unknown; name?: unknown } | undefined;
    if (identity && typeof identity.uid === 'string') out.identity = { uid: identity.uid, name: typeof identity.name === 'string' ? identity.name : '' };
    return out;
  }
  if (!validated) await client.request('GET', '/iam/v2/groups', { query: [['pageSize', '1']] });
  return base;
}

/** `acme/owner (owner)`, or the subject when the identity is unknown. */
export function describeIdentity(who: WhoAmI): string {
  if (who.identity) return `${who.identity.name || who.identity.uid} (${who.identity.uid})`;
  return who.sub ? `subject ${who.sub}` : 'an unknown identity';
}

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
