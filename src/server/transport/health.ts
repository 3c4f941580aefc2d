// GET /healthz: whether serve is ready for requests, for readiness probes (a CI service's
// health check, Testcontainers' wait strategy, a load balancer). No token: a probe has none.
// Answered before the API's dispatch, so that nothing meant for the API under test bends it:
// injected faults and latency, the limits per caller, the journal and a deterministic serve's
// clock (one tick per request) never see a probe, and a probe always sees the truth.
import { readFileSync } from 'node:fs';
import { ApiError, Code } from '../../api/errors.js';
import type { Exchange } from './exchange.js';
import { PACKAGE_ROOT } from '../base/package-files.js';
import type { Store } from '../store/store.js';

const HEALTH_PATH = '/healthz';

/** How long the store has to answer a probe before serve reports it unavailable. */
const PROBE_TIMEOUT_MS = 3000;

/** The body of every answer, 200 and 503 alike. */
interface HealthStatus {
  /** ok (200); starting, unavailable or stopping (503). */
  status: 'ok' | 'starting' | 'unavailable' | 'stopping';
  /** pctl's version (package.json). */
  version: string;
  store: { engine: 'sqlite' | 'postgres'; ready: boolean; error?: string };
}

export interface HealthEndpoint {
  /** Whether a request is for this endpoint (its path, whatever the query). */
  owns(url: string): boolean;
  answer(x: Exchange): void;
  /** Bootstrap is done and requests are authenticated: probes may see ok. */
  started(): void;
  /** serve is shutting down: probes see 503 from now on. */
  stopping(): void;
}

export function healthEndpoint(store: Store): HealthEndpoint {
  let phase: 'starting' | 'started' | 'stopping' = 'starting';
  const engine = store.shared ? 'postgres' : 'sqlite';
  const version = packageVersion();

  const status = async (): Promise<HealthStatus> => {
    if (phase !== 'started') return { status: phase, version, store: { engine, ready: false } };
    const error = await probe(store);
    return error === undefined
      ? { status: 'ok', version, store: { engine, ready: true } }
      : { status: 'unavailable', version, store: { engine, ready: false, error } };
  };

  return {
    owns: (url) => url.startsWith(HEALTH_PATH) && (url.length === HEALTH_PATH.length || url.charCodeAt(HEALTH_PATH.length) === 63 /* ? */),
    answer: (x) => {
      x.discardBody();
      if (x.method !== 'GET' && x.method !== 'HEAD') {
        const err = new ApiError(Code.UNIMPLEMENTED, `Method ${x.method} is not allowed on ${HEALTH_PATH} (allowed: GET, HEAD)`, { reason: 'METHOD_NOT_ALLOWED', httpStatus: 405 });
        send(x, 405, err.toStatus(), { allow: 'GET, HEAD' });
        return;
      }
      void status().then((s) => send(x, s.status === 'ok' ? 200 : 503, s, s.status === 'ok' ? {} : { 'retry-after': '1' }));
    },
    started: () => { if (phase === 'starting') phase = 'started'; },
    stopping: () => { phase = 'stopping'; },
  };
}

function send(x: Exchange, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  // no-store: a cache between a probe and serve must never answer for serve.
  x.respond(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers }, text);
}

/**
 * Reads from the store: SQLite's file, or PostgreSQL (the mirror catches up, as before every
 * request). Undefined when it answered in time, else what failed, in words.
 */
async function probe(store: Store): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the ${store.shared ? 'database' : 'store'} did not answer within ${PROBE_TIMEOUT_MS / 1000} s`), PROBE_TIMEOUT_MS);
  });
  const read = (async () => {
    if (store.shared) await store.refresh();
    else store.prepare('SELECT count(*) FROM meta').get();
    return undefined;
  })().catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version: string }).version;
}
