// Masking of credentials, for the CLI's debug trace and serve's --log: a token never reaches a
// terminal or a log, whichever way it travels.
//   headers  Authorization / Proxy-Authorization → `Bearer ***`; Cookie / Set-Cookie → ***
//   bodies   JWTs (`eyJ…`), `pctl_…` tokens, and the values of token-ish JSON fields and
//            form/query parameters (access_token, id_token, refresh_token, token, code,
//            code_verifier, client_secret, password)
const SECRET_KEYS = 'access_token|id_token|refresh_token|token|client_secret|code_verifier|password|ownerToken';
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
