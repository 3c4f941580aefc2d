// Masking of credentials, shared by the CLI's debug trace and serve's --log: tokens never
// reach stderr, whichever way they travel.
//   headers  Authorization / Proxy-Authorization → `Bearer ***`; Cookie / Set-Cookie → ***
//   bodies   JWTs (`eyJ…`), `pctl_…` tokens, and the values of token-ish JSON fields and
//            form/query parameters (access_token, id_token, refresh_token, token, code,
//            code_verifier, client_secret, password)
//   URLs     the same rules, applied to each path segment and query parameter as decoded
//            too, so that percent-encoding (`acc%65ss_token=…`) hides nothing
import { registry } from './registry/index.js';

/** Token-ish keys, and every resource's write-only fields (`oidc.clientSecret` → clientSecret). */
const SECRET_KEYS = [
  'access_token|id_token|refresh_token|token|client_secret|code_verifier|password|ownerToken',
  ...registry.flatMap((d) => (d.writeOnly ?? []).map((path) => path.split('.').pop()!)),
].join('|');
const JSON_FIELD_RE = new RegExp(`("(?:${SECRET_KEYS})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');
const FORM_FIELD_RE = new RegExp(`(^|[?&\\s])((?:${SECRET_KEYS}|code)=)[^&\\s"]+`, 'gi');
const JWT_RE = /\beyJ[A-Za-z0-9_-]{6,}(?:\.[A-Za-z0-9_-]*){0,2}/g;
const PCTL_TOKEN_RE = /\bpctl_[A-Za-z0-9_-]+/g;

/** Any text (a body, a URL, a header value) with token-looking values replaced by `***`. */
export function redactText(text: string): string {
  return text
    .replace(JSON_FIELD_RE, '$1"***"')
    .replace(FORM_FIELD_RE, '$1$2***')
    .replace(JWT_RE, 'eyJ***')
    .replace(PCTL_TOKEN_RE, 'pctl_***');
}

/** A header value as the trace shows it. */
export function redactHeader(name: string, value: string): string {
  const n = name.toLowerCase();
  if (n === 'authorization' || n === 'proxy-authorization') {
    const scheme = /^\S+/.exec(value)?.[0];
    return scheme && scheme !== value ? `${scheme} ***` : '***';
  }
  if (n === 'cookie' || n === 'set-cookie') return '***';
  return redactText(value);
}

/**
 * A URL (absolute, or a request target such as `/a/b?c=d`) with its credentials masked: each
 * path segment and each query parameter is checked raw and decoded; one that holds a token
 * is shown decoded with the token masked, every other part is left as it came.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const maskedPath = path.split('/').map((segment) => redactPart(segment, decodePart(segment))).join('/');
  if (q === -1) return maskedPath;
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const decoded = eq === -1 ? decodePart(pair, true) : `${decodePart(pair.slice(0, eq), true)}=${decodePart(pair.slice(eq + 1), true)}`;
    return redactPart(pair, decoded);
  });
  return `${maskedPath}?${query.join('&')}`;
}

function redactPart(raw: string, decoded: string): string {
  const masked = redactText(decoded);
  return masked !== decoded ? masked : redactText(raw);
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
