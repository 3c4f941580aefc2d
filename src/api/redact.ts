// Masking of secrets wherever a request or an answer is recorded: the CLI's debug trace,
// serve's --log and its request journal. It goes by the structure of what is recorded, never
// by how it happens to be rendered, so no encoding (`acc%65ss_token=`, `&#38;code=`) hides one:
//   JSON     the value of every field with a secret name (SECRET_NAMES), at any depth → "***"
//   forms    the value of every parameter with a secret name → *** (a URL's query is a form)
//   URLs     the query as a form; each path segment, decoded, as a string
//   strings  every other string: a URL in it is masked as a URL, and a JWT (`eyJ…`) or a
//            `pctl_…` token that makes up part of it (pasted into a description) → eyJ*** / pctl_***
//   headers  Authorization / Proxy-Authorization → `Bearer ***`; Cookie / Set-Cookie → ***
//   pages    an HTML page has no fields: the handler that renders one names the values it put
//            in (serve's Response.secrets, in each encoding the page uses), and maskValues hides them.
import { registry } from './registry/index.js';

/** Names (of JSON fields, form and query parameters) whose values are secrets, compared by normalizedName. */
const SECRET_NAMES = new Set([
  // OAuth and OIDC: tokens, authorization codes and PKCE verifiers, client secrets, the device
  // flow's codes (RFC 8628), and serve's sign-in pages' CSRF handle and the client's state.
  'access_token', 'id_token', 'refresh_token', 'token', 'code', 'code_verifier', 'client_secret',
  'device_code', 'user_code', 'csrf', 'state', 'password', 'owner_token',
  // Every resource's write-only fields (oidc.clientSecret → clientSecret, an invite's code).
  ...registry.flatMap((d) => (d.writeOnly ?? []).map((path) => path.split('.').pop()!)),
].map(normalizedName));

const MASK = '***';
/** Deeper than this, a JSON value is not shown at all (no body the API takes nests so deep). */
const MAX_SHOWN_DEPTH = 100;
const JWT_RE = /\beyJ[A-Za-z0-9_-]{6,}(?:\.[A-Za-z0-9_-]*){0,2}/g;
const PCTL_TOKEN_RE = /\bpctl_[A-Za-z0-9_-]+/g;

/** `client_secret`, `clientSecret` and `Client-Secret` are one name. */
function normalizedName(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(normalizedName(name));
}

/** A parsed JSON value with the value of every secret field replaced by "***" (numbers and booleans are no secrets: an error's `code`). */
export function maskJson(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskString(value);
  if (!value || typeof value !== 'object') return value;
  if (depth >= MAX_SHOWN_DEPTH) return `(nested more than ${MAX_SHOWN_DEPTH} levels: not shown)`;
  if (Array.isArray(value)) return value.map((v) => maskJson(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const secret = isSecretName(k) && (typeof v === 'string' || (v !== null && typeof v === 'object'));
    // defineProperty: a `__proto__` key stays a key, as JSON.parse made it.
    Object.defineProperty(out, k, { value: secret ? MASK : maskJson(v, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A form or a URL's query (`a=1&code=xyz`): each parameter with a secret name becomes
 * `name=***` (the name decoded); every other one is left exactly as it came, unless its value,
 * decoded, holds a token.
 */
function maskForm(query: string): string {
  return query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1) return pair;
    const name = decodePart(pair.slice(0, eq), true);
    if (isSecretName(name)) return `${name}=${MASK}`;
    const value = decodePart(pair.slice(eq + 1), true);
    const masked = maskString(value);
    return masked === value ? pair : `${pair.slice(0, eq)}=${masked}`;
  }).join('&');
}

/** A URL (absolute, or a request target such as `/a/b?c=d`): its query masked as a form, each path segment as a string. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const maskedPath = path.split('/').map((segment) => {
    const decoded = decodePart(segment);
    const masked = maskString(decoded);
    return masked === decoded ? segment : masked;
  }).join('/');
  return q === -1 ? maskedPath : `${maskedPath}?${maskForm(url.slice(q + 1))}`;
}

/** A string value: each URL or request target in it masked as one (`…/device?user_code=…`), then any token in it. */
function maskString(text: string): string {
  const urls = text.includes('?') ? text.split(/(\s+)/).map((word) => (word.includes('?') ? redactUrl(word) : word)).join('') : text;
  return urls.replace(JWT_RE, 'eyJ***').replace(PCTL_TOKEN_RE, 'pctl_***');
}

const FORM_RE = /^[^\s=&]+=[^\s&]*(?:&[^\s=&]+=[^\s&]*)*$/;

/**
 * A body as it was sent: JSON (shown again as JSON, its secret fields masked), a form (its
 * secret parameters masked), or other text (a string: tokens in it masked).
 */
export function redactText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return maskString(text);
    }
    return JSON.stringify(maskJson(value), null, text.includes('\n') ? 2 : undefined);
  }
  return FORM_RE.test(trimmed) ? maskForm(text) : maskString(text);
}

/** A header value as the trace shows it. */
export function redactHeader(name: string, value: string): string {
  const n = name.toLowerCase();
  if (n === 'authorization' || n === 'proxy-authorization') {
    const scheme = /^\S+/.exec(value)?.[0];
    return scheme && scheme !== value ? `${scheme} ${MASK}` : MASK;
  }
  if (n === 'cookie' || n === 'set-cookie') return MASK;
  return maskString(value);
}

/** A rendered page with each of `values` (the secrets its handler put in, as the page encodes them) replaced by ***. */
export function maskValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of [...new Set(values)].filter(Boolean).sort((a, b) => b.length - a.length)) out = out.replaceAll(v, MASK);
  return out;
}

/** Percent-decoding that never throws (a malformed escape leaves the text as it is); `+` is a space in a query. */
function decodePart(text: string, query = false): string {
  const t = query ? text.replaceAll('+', ' ') : text;
  try {
    return decodeURIComponent(t);
  } catch {
    return t;
  }
}
