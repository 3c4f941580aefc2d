// The keys of another token issuer (a CI provider, a cluster): its OIDC discovery document
// names its JWKS, both fetched over https (http only to a loopback host), bounded in size and
// time, and kept for as long as their Cache-Control allows (within bounds).
import { createLocalJWKSet, type JWK } from 'jose';
import { issuerProblem } from '../../api/schemas.js';
import { unauthenticated } from '../../api/errors.js';
import type { IssuerKeySource } from './tokens.js';

/** Kept at least this long (an issuer that says no-cache is not asked on every exchange)… */
const MIN_CACHE_MS = 60_000;
/** …at most this long (keys rotate), and this long when the issuer says nothing. */
const MAX_CACHE_MS = 24 * 3600_000;
const DEFAULT_CACHE_MS = 5 * 60_000;
/** An unknown kid fetches the JWKS again, at most this often per issuer. */
const REFRESH_COOLDOWN_MS = 30_000;
const FETCH_TIMEOUT_MS = 5000;
const MAX_DOCUMENT_BYTES = 256 * 1024;
const MAX_ISSUERS = 1000;

interface Cached {
  keys: ReturnType<typeof createLocalJWKSet>;
  until: number;
  fetchedAt: number;
}

type Fetch = (url: string, init: { signal: AbortSignal; redirect: 'error' }) => Promise<globalThis.Response>;

export class RemoteIssuers implements IssuerKeySource {
  private cache = new Map<string, Cached>();
  private inFlight = new Map<string, Promise<Cached>>();

  constructor(private readonly clock: () => number, private readonly fetchUrl: Fetch = fetch) {}

  async keys(issuer: string, refresh: boolean): Promise<ReturnType<typeof createLocalJWKSet>> {
    const now = this.clock();
    const hit = this.cache.get(issuer);
    if (hit && hit.until > now && (!refresh || now - hit.fetchedAt < REFRESH_COOLDOWN_MS)) return hit.keys;
    let pending = this.inFlight.get(issuer);
    if (!pending) {
      pending = this.load(issuer).finally(() => this.inFlight.delete(issuer));
      this.inFlight.set(issuer, pending);
    }
    return (await pending).keys;
  }

  private async load(issuer: string): Promise<Cached> {
    const discovery = await this.getJson(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, issuer);
    const doc = discovery.body as { issuer?: unknown; jwks_uri?: unknown };
    if (doc.issuer !== issuer) throw unauthenticated(`The discovery document of ${issuer} names another issuer (${JSON.stringify(doc.issuer)})`);
    if (typeof doc.jwks_uri !== 'string' || issuerProblem(doc.jwks_uri)) {
      throw unauthenticated(`The discovery document of ${issuer} has no usable jwks_uri (it must be https, or http to a loopback host)`);
    }
    const jwks = await this.getJson(doc.jwks_uri, issuer);
    const keys = (jwks.body as { keys?: unknown }).keys;
    if (!Array.isArray(keys)) throw unauthenticated(`The JWKS of ${issuer} (${doc.jwks_uri}) holds no keys`);
    const now = this.clock();
    const cached = { keys: createLocalJWKSet({ keys: keys as JWK[] }), fetchedAt: now, until: now + Math.min(discovery.maxAgeMs, jwks.maxAgeMs) };
    if (this.cache.size >= MAX_ISSUERS) this.cache.clear();
    this.cache.set(issuer, cached);
    return cached;
  }

  private async getJson(url: string, issuer: string): Promise<{ body: unknown; maxAgeMs: number }> {
    if (issuerProblem(url)) throw unauthenticated(`Keys of ${issuer} are not fetched from ${url}: it must be https, or http to a loopback host`);
    let res: globalThis.Response;
    try {
      res = await this.fetchUrl(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
    } catch (err) {
      throw unauthenticated(`Could not fetch ${url} to check the token of ${issuer}: ${(err as Error).message}`);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw unauthenticated(`Fetching ${url} to check the token of ${issuer} answered ${res.status}`);
    }
    const text = await boundedText(res, MAX_DOCUMENT_BYTES);
    if (text === undefined) throw unauthenticated(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    try {
      return { body: JSON.parse(text) as unknown, maxAgeMs: maxAge(res.headers.get('cache-control')) };
    } catch {
      throw unauthenticated(`${url} is not JSON`);
    }
  }
}

/**
 * The body as UTF-8 text, read only as far as `max` bytes: undefined, and the rest never read,
 * when it is longer (a content-length over it, or more bytes as they stream: an issuer's
 * endless or huge answer is not held in memory first).
 */
async function boundedText(res: globalThis.Response, max: number): Promise<string | undefined> {
  if (Number(res.headers.get('content-length') ?? 0) > max) {
    await res.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!res.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    size += part.value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(part.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Cache-Control's max-age, within [MIN_CACHE_MS, MAX_CACHE_MS]. */
function maxAge(header: string | null): number {
  const m = /max-age=(\d+)/i.exec(header ?? '');
  if (!m) return DEFAULT_CACHE_MS;
  return Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, Number(m[1]) * 1000));
}
