// `pctl serve` as a library: lock the data dir, open the store, bootstrap when empty,
// listen. The CLI command and the tests both start servers through startServer().
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { bearerAuthenticator, ensureOwnerToken, issueIdentityToken } from './auth/authenticate.js';
import { AUDIENCE, importSigningKey, loadSigningKey, newSigningJwk, TokenVerifier, type SigningKey } from './auth/tokens.js';
import { RemoteIssuers } from './auth/issuers.js';
import { securityTokenService } from './auth/sts.js';
import { stsRoutes } from './surfaces/oauth/sts-routes.js';
import { oidcRoutes } from './surfaces/oauth/oidc.js';
import { oauthRoutes } from './surfaces/oauth/index.js';
import { openApiRoutes } from './surfaces/rest/openapi.js';
import { bootstrap, followIssuer } from './data/bootstrap.js';
import { createDomain } from './domain/index.js';
import { staleBuiltinRoles } from './domain/roles.js';
import { domainContext } from './domain/context.js';
import { createDispatcher, inProcessRest, toErrorResponse, type Dispatch } from './pipeline/dispatch.js';
import { createHttp1Server } from './transport/http1.js';
import { restHandler } from './surfaces/rest/http.js';
import { http1Exchange, type Exchange, type Http2Exchange } from './transport/exchange.js';
import { healthEndpoint } from './transport/health.js';
import { publishedRest } from './surfaces/published/index.js';
import type { Principal } from './auth/principal.js';
import { consoleRoutes } from './surfaces/console.js';
import { createFront, type Front } from './transport/front.js';
import { DEFAULT_H2_TIMEOUTS, type H2Timeouts } from './transport/h2/connection.js';
import { rpcGate, type Listeners } from './surfaces/rpc/gate.js';
import type { ReadContext } from './surfaces/rpc/reads.js';
import { onFirstUse } from './pipeline/lazy.js';
import { MCP_PATH, mcpEndpoint, protectedResourceRoutes } from './surfaces/mcp/endpoint.js';
import type { JWK } from 'jose';
import { unauthenticated } from '../api/errors.js';
import { lockDataDir } from './data/lock.js';
import { pingRoutes } from './surfaces/rest/ping.js';
import { restRoutes, type RestContext } from './surfaces/rest/index.js';
import { operationsOf } from './pipeline/operations.js';
import { DataDirNotEmptyError, validateSeed, type SeedDocument } from './data/seed.js';
import { redactDatabaseUrl } from './store/shared.js';
import { Store } from './store/store.js';
import { createLimiter, DEFAULT_FAIR_QUEUING, type Limits } from './pipeline/ratelimit.js';
import type { FaultRule } from '../api/faults.js';
import { FaultInjector } from './pipeline/faults.js';
import { DEFAULT_JOURNAL_SIZE, Journal } from './pipeline/journal.js';
import { controlHandler } from './surfaces/control/routes.js';
import { Snapshots } from './data/snapshots.js';
import { Determinism } from './pipeline/deterministic.js';
import { systemRandom, type Random } from './base/random.js';
import { resourceOperations } from './surfaces/v1/operations.js';
import { v1Surface, type V1Options } from './surfaces/v1/index.js';
import { v1Callers } from './surfaces/v1/report.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_RETRY, Deliverer, sinkLookup, type RetrySchedule } from './surfaces/events/deliverer.js';
import { recordEvents } from './surfaces/events/feed.js';
import { eventControlRoutes } from './surfaces/events/routes.js';

export interface ServeOptions {
  /** owner.token, and (without `database`) the SQLite database, the signing key and the lock. */
  dataDir: string;
  /**
   * A PostgreSQL URL (`serve --database`, PCTL_DATABASE_URL): the data, the signing key and the
   * page-token key live there, shared by every serve that names it (replicas); see store/postgres.ts.
   */
  database?: string;
  /**
   * The URL clients reach serve at when it is not its own (`--public-url`: replicas behind a
   * load balancer): the token issuer, which identities of serve's own issuer name.
   */
  publicUrl?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Milliseconds since the epoch; tests inject one to move time. */
  clock?: () => number;
  /** Where uids and codes come from (default: the system's CSPRNG); tests inject one. */
  random?: Random;
  /**
   * `--deterministic SEED`: the clock starts at 2026-01-01T00:00:00Z and moves one second per
   * request, and uids and codes come from a stream seeded with SEED, so that fresh data dirs
   * sent the same requests answer with the same bodies. Replaces `clock` and `random`; tokens
   * and sign-ins keep the real clock (clients check expiry against theirs).
   */
  deterministic?: number;
  /** One line per request, when given. */
  log?: (line: string) => void;
  /** Loaded at bootstrap into an empty data dir (validated first; see seed.ts). */
  seed?: SeedDocument;
  /** A seed and a data dir that already holds data: 'error' (default) refuses to start, 'keep' starts with the data as it is. */
  seedIfNotEmpty?: 'error' | 'keep';
  /** More audiences serve answers for (`--audience`), beside `pctl`, its URL and its public URL. */
  audiences?: string[];
  /**
   * `--trust-test-issuers`: the token exchange takes tokens of any issuer signed with serve's own
   * key (`pctl serve token --as-issuer`), so that tests can stand in for a CI provider. Never in production.
   */
  trustTestIssuers?: boolean;
  /** Other token issuers accepted offline: issuer URL → its JWKS (`--trust-issuer URL=JWKS_FILE`). */
  trustedIssuers?: Record<string, { keys: JWK[] }>;
  /** Lifetime of DIR/owner.token in seconds (default 30 days, at most MAX_TOKEN_TTL_S). */
  ownerTokenTtlSeconds?: number;
  /** The limits per caller (`--rate-limit`): fair queuing (the default), a rate (its buckets run on `clock`), or 'off'. */
  rateLimit?: Limits;
  /** Fault and latency rules in force from the start (`--fault`, `--latency`); more come through /_pctl/faults. */
  faults?: FaultRule[];
  /** How many requests the journal keeps (`--journal N`; default DEFAULT_JOURNAL_SIZE, 0 for none). */
  journalSize?: number;
  /** Waits out an injected latency (default setTimeout; tests inject one). */
  sleep?: (ms: number) => Promise<void>;
  /** When webhook deliveries are retried (`--event-retry`, `--event-attempts`): default DEFAULT_RETRY; tests shorten it. */
  eventRetry?: RetrySchedule;
  /** How long a sink has to answer one delivery (`--event-timeout`; default DEFAULT_DELIVERY_TIMEOUT_MS). */
  eventTimeoutMs?: number;
  /** HTTP/2's deadlines (`--http2-timeouts`); each one not given is DEFAULT_H2_TIMEOUTS'. */
  http2Timeouts?: Partial<H2Timeouts>;
  /** Whose HTTP/2 serves h2c (`--http2`): serve's own (default) or node:http2. */
  http2?: 'own' | 'node';
  /** Webhook sinks may point at private and link-local addresses (`--allow-private-sinks`). */
  allowPrivateSinks?: boolean;
  /** Resolves sink names for deliveries (default dns.lookup); tests inject a stub, so nothing leaves loopback. */
  sinkResolver?: Parameters<typeof sinkLookup>[1];
  /** Offer the write tools on /mcp (`--mcp-writes`); without it /mcp only reads. */
  mcpWrites?: boolean;
  /** An /mcp session unused for this long ends (`--mcp-session-idle`; default 30 minutes). */
  mcpSessionIdleMs?: number;
  /** The v1 calls beside v2 (`--v1`, `--v1-sunset`); default: answered, no sunset date. */
  v1?: V1Options;
  /**
   * Count the rows lists read, for `GET /_pctl/list-stats` ({rowsRead}): what tests and
   * benchmarks measure a list's cost by. Off by default: counting costs each visited row a call.
   */
  countListRows?: boolean;
}

export interface RunningServer {
  /** http://HOST:PORT, no trailing slash. */
  url: string;
  port: number;
  dataDir: string;
  ownerToken: string;
  organizationUid: string;
  ownerIdentityUid: string;
  /** Whether this start loaded opts.seed (false when the data dir already held data). */
  seeded: boolean;
  store: Store;
  /** The fault rules in force (the control API's view of them). */
  faults: FaultInjector;
  /** The last requests answered. */
  journal: Journal;
  /** DATA_DIR/snapshots (what the control API saves, lists and restores). */
  snapshots: Snapshots;
  /** A token for an identity whose claimMatch.issuer is this server (what `pctl serve token` prints). */
  issueToken(identityUid: string, ttlSeconds?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const determinism = deterministicSources(opts);
  // Tokens and sign-ins run on the real clock even in a deterministic serve: clients check a
  // token's expiry against their own clock, and device sign-ins poll in real seconds.
  const tokenClock = opts.clock ?? Date.now;
  const clock = determinism?.clock ?? tokenClock;
  const random = determinism?.random ?? opts.random ?? systemRandom;
  createDataDir(opts.dataDir);
  makeDataDirPrivate(opts.dataDir);
  // Replicas of one database may share a data dir (it holds only owner.token then); the
  // database's own start lock keeps two of them from bootstrapping at once.
  const unlock = opts.database ? () => {} : lockDataDir(opts.dataDir);
  let store: Store | undefined;
  let listening: Front | undefined;
  try {
    const seed = opts.seed ? validateSeed(opts.seed) : undefined;
    store = opts.database ? await openSharedStore(opts.database) : new Store(opts.dataDir);
    if (seed && !store.isEmpty() && (opts.seedIfNotEmpty ?? 'error') === 'error') throw new DataDirNotEmptyError(opts.database ? redactDatabaseUrl(opts.database) : opts.dataDir);
    const openedStore = store;
    // serve's token issuer, its public URL: kept in the store (followIssuer), read where needed.
    const issuerUrl = () => openedStore.getMeta('issuer') ?? '';
    const key = store.shared ? await sharedSigningKey(store) : await loadSigningKey(opts.dataDir);
    // Until serve listens, it answers for `pctl` alone; then for its URLs too (see below).
    let audiences: ReadonlySet<string> = new Set([AUDIENCE]);
    const verifier = new TokenVerifier(key, issuerUrl, tokenClock, () => audiences);
    verifier.trustTestIssuers = opts.trustTestIssuers === true;
    verifier.remote = new RemoteIssuers(tokenClock);
    for (const [issuer, jwks] of Object.entries(opts.trustedIssuers ?? {})) verifier.trustIssuer(issuer, jwks);
    const ctx = domainContext(store, clock, random, { countRowsRead: opts.countListRows === true }, opts.allowPrivateSinks === true);
    await ctx.lists.ensureTokenKey();
    const domain = createDomain(ctx);
    const operations = operationsOf(domain);
    const rest: RestContext = { domain, operations, store };
    const routes = restRoutes(rest);
    const touch = (uid: string, at: number) => domain.identities.touch(uid, at);

    // Authentication is settled once bootstrap has run; until then every request is refused.
    let authenticate: (h: string | undefined) => Principal | Promise<Principal> = async () => {
      throw unauthenticated('The server is starting; try again in a moment');
    };
    const limiter = opts.rateLimit === 'off' ? undefined : createLimiter(opts.rateLimit ?? DEFAULT_FAIR_QUEUING, clock);
    const faults = new FaultInjector();
    for (const rule of opts.faults ?? []) faults.add(rule);
    const journal = new Journal(opts.journalSize ?? DEFAULT_JOURNAL_SIZE);
    const sinkLookupFn = sinkLookup(opts.allowPrivateSinks === true, opts.sinkResolver);
    const deliverer = new Deliverer({
      outbox: store.outbox, key, issuer: issuerUrl, faults,
      schedule: opts.eventRetry ?? DEFAULT_RETRY, timeoutMs: opts.eventTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
      ...(sinkLookupFn ? { lookup: sinkLookupFn } : {}),
      allowPrivateSinks: opts.allowPrivateSinks === true,
      // Other replicas commit events this one hears of only by looking.
      ...(store.shared ? { pollMs: 1000 } : {}),
      ...(opts.log ? { log: opts.log } : {}),
      // A replica's mirror first catches up: a subscription another one just made is there.
      subscriptionExists: async (uid) => (await openedStore.refresh(), openedStore.get(uid, 'subscription') !== undefined),
    });
    // Every change a caller commits becomes a CloudEvent in the outbox, in the same transaction;
    // the deliverer looks for work only after a commit that queued deliveries (a look after
    // every commit cost each create two reads before its answer went out).
    recordEvents(store, { random, clock, baseUrl: issuerUrl, onDeliveries: () => deliverer.wake() });
    // Refresh tokens are secrets: never from a deterministic serve's predictable stream.
    const sts = securityTokenService({ store, key, verifier, issuer: issuerUrl, clock: tokenClock, random: opts.random ?? systemRandom });
    const oauth = oauthRoutes({ issuer: issuerUrl, key, store, clock: tokenClock, random, authenticate: async (h) => authenticate(h) }, sts);
    let ownIssuer = ''; // serve's base URL, once listening
    const snapshots = new Snapshots({
      dataDir: opts.dataDir, store, clock,
      ...(store.shared ? { unavailable: 'snapshots and live reset need the SQLite store (serve --data DIR); this serve keeps its data in PostgreSQL (--database)' } : {}),
      // Restored identities may name the issuer URL of the serve that saved them.
      adjust: () => followIssuer(ctx, ownIssuer),
      // What serve knows of callers starts over, as at a start (token lookups, sign-ins in
      // progress); a deterministic serve's clock and random stream go back to where they
      // stood once started, so the requests after a reset get what they got after the start.
      restored: (reset) => {
        if (reset) determinism?.rewindToStart();
        authenticate = bearerAuthenticator(openedStore, verifier, clock, touch, sts.principalOf);
        oauth.forget();
        sts.forget();
      },
    });
    const consoleFiles = consoleRoutes();
    const dispatchCall = createDispatcher({
      routes,
      surfaces: [v1Surface(resourceOperations(operations, domain, store), opts.v1 ?? { enabled: true }, opts.log)],
      publicRoutes: {
        ...oidcRoutes(issuerUrl, key),
        ...protectedResourceRoutes(issuerUrl),
        ...oauth.routes,
        ...stsRoutes(sts, (h) => authenticate(h), { store, authz: ctx.authz }),
        ...consoleFiles,
        ...openApiRoutes(),
        ...pingRoutes(),
      },
      published: publishedRest(inProcessRest(routes), rest, opts.log),
      authenticate: (h) => authenticate(h),
      ...(limiter ? { limiter, unlimited: new Set(Object.keys(consoleFiles)) } : {}),
      ...(opts.log ? { log: opts.log } : {}),
      control: controlHandler({
        store, faults, journal, snapshots,
        more: {
          ...eventControlRoutes(store, () => deliverer.wake()),
          'GET /_pctl/v1-callers': () => ({ body: v1Callers(journal, openedStore) }),
          ...(opts.countListRows ? { 'GET /_pctl/list-stats': () => ({ body: { rowsRead: ctx.lists.rowsRead } }) } : {}),
        },
      }),
      faults,
      journal,
      clock,
      ...(opts.sleep ? { sleep: opts.sleep } : {}),
    });
    const ticked: typeof dispatchCall = determinism ? (call) => (determinism.tick(), dispatchCall(call)) : dispatchCall;
    // On a shared database, a request first brings this replica up to what all have committed.
    const dispatch: typeof dispatchCall = store.shared
      ? (call) => openedStore.refresh()!.then(() => ticked(call), (err: unknown) => toErrorResponse(err, opts.log))
      : ticked;
    // One listener for both HTTP versions: RPCs (rpc/), /mcp by MCP, the rest as REST.
    // Sessions idle by the real clock, as tokens do (a deterministic clock moves per request).
    const mcp = mcpEndpoint({
      dispatch, operations, domain, store, authenticate: async (h) => authenticate(h), writes: opts.mcpWrites === true, issuer: issuerUrl,
      clock: tokenClock, ...(opts.mcpSessionIdleMs ? { idleMs: opts.mcpSessionIdleMs } : {}), log: opts.log,
    });
    const apiExchange = restHandler(dispatch, opts.log);
    // /healthz goes around the dispatch (health.ts says why); unauthenticated, it answers from the first byte on.
    const health = healthEndpoint(store);
    const restExchange = (x: Exchange) => (health.owns(x.url) ? health.answer(x) : apiExchange(x));
    const restSide = {
      node: mcp.listener((req, res) => restExchange(http1Exchange(req, res))),
      // The path compared in place: every REST request over HTTP/2 passes here (no split array per request).
      http2: (x: Http2Exchange) => (x.url.startsWith(MCP_PATH) && (x.url.length === MCP_PATH.length || x.url.charCodeAt(MCP_PATH.length) === 63 /* ? */) ? mcp.http2(x) : restExchange(x)),
    };
    // The gRPC stack is loaded by the first RPC: a serve only REST clients call never loads it.
    const rpc = onFirstUse('gRPC', () => loadRpcListeners(dispatch, restSide, rest, opts.log), opts.log);
    const listeners = rpcGate(rpc, restSide, opts.log);
    const server = createFront(createHttp1Server(listeners.request, limiter), listeners.stream, {
      timeouts: { ...DEFAULT_H2_TIMEOUTS, ...opts.http2Timeouts }, ...(opts.http2 ? { http2: opts.http2 } : {}),
    });
    const port = await server.listen(opts.port ?? 8700, host);
    listening = server;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

    const issuer = opts.publicUrl ?? url;
    ownIssuer = issuer;
    audiences = answeredAudiences([url, issuer, ...(opts.audiences ?? [])]);
    const seeded = Boolean(seed) && store.isEmpty();
    if (store.isEmpty()) {
      await bootstrap(ctx, { issuer, ...(seed ? { seed } : {}) });
      if (!store.shared) await snapshots.saveInitial();
    } else if (!store.shared || opts.publicUrl) {
      // Without --public-url, replicas keep the issuer URL of the one that bootstrapped, so
      // that a token any of them issues is valid at all; a serve of its own follows its URL.
      await store.write(() => followIssuer(ctx, issuer));
    }
    const staleRoles = staleBuiltinRoles(ctx);
    if (staleRoles.length) await openedStore.write(() => staleRoles.forEach((role) => openedStore.update(role)));
    const ownerToken = await ensureOwnerToken(store, opts.dataDir, key, verifier, issuerUrl() || url, tokenClock, opts.ownerTokenTtlSeconds);
    await store.shared?.started();
    authenticate = bearerAuthenticator(store, verifier, clock, touch, sts.principalOf);
    determinism?.markStarted();
    await deliverer.start();
    health.started();

    const openStore = store;
    let closing: Promise<void> | undefined;
    return {
      url, port, dataDir: opts.dataDir, ownerToken, store, seeded, faults, journal, snapshots,
      organizationUid: store.getMeta('organization')!,
      ownerIdentityUid: store.getMeta('owner_identity')!,
      issueToken: async (identityUid, ttlSeconds = 3600) => (await openStore.refresh(), await issueIdentityToken(openStore, key, identityUid, ttlSeconds, tokenClock)).token,
      // Requests in flight get a moment to finish; then connections are cut.
      close: () => (closing ??= (health.stopping(), mcp.close()).then(() => server.close(2000)).then(async () => {
        await deliverer.close();
        await openStore.close();
        unlock();
      })),
    };
  } catch (err) {
    void listening?.close(0);
    await store?.close();
    unlock();
    throw err;
  }
}

/** The RPC listeners, loaded on the first RPC: the vendor's published services, v1's and sign-in (the published files are the one gRPC contract). */
async function loadRpcListeners(dispatch: Dispatch, rest: Parameters<typeof rpcGate>[1], ctx: ReadContext, log: ((line: string) => void) | undefined): Promise<Listeners> {
  const [{ rpcListeners }, { V1_SERVICES }, { VENDOR_SERVICES }, { SIGN_IN_SERVICES }] = await Promise.all([
    import('./surfaces/rpc/index.js'), import('./surfaces/v1/surface.js'), import('./surfaces/rpc/vendor-services.js'), import('./surfaces/rpc/sign-in.js'),
  ]);
  return rpcListeners(dispatch, rest, log, [...V1_SERVICES, ...SIGN_IN_SERVICES], ctx, VENDOR_SERVICES);
}

/** `pctl` and each of `more`; a URL with and without its trailing slash (clients differ). */
function answeredAudiences(more: string[]): ReadonlySet<string> {
  const out = new Set([AUDIENCE]);
  for (const a of more) {
    out.add(a);
    if (/^https?:\/\//.test(a)) out.add(a.endsWith('/') ? a.slice(0, -1) : `${a}/`);
  }
  return out;
}

/** A store mirroring a PostgreSQL database, loaded; its start lock is held until started(). */
async function openSharedStore(url: string): Promise<Store> {
  const { PostgresDatabase } = await import('./store/postgres.js');
  const store = new Store(await PostgresDatabase.open(url));
  try {
    await store.reload();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** The signing key of replicas sharing a database: kept there, made by the first to start. */
async function sharedSigningKey(store: Store): Promise<SigningKey> {
  const saved = store.getMeta('signing_key');
  if (saved) return importSigningKey(JSON.parse(saved) as JWK);
  const jwk = await newSigningJwk();
  await store.write(() => store.setMeta('signing_key', JSON.stringify(jwk)));
  return importSigningKey(jwk);
}

/** The clock and random source of `deterministic`, or undefined without it. */
function deterministicSources(opts: ServeOptions): Determinism | undefined {
  if (opts.deterministic === undefined) return undefined;
  if (!Number.isSafeInteger(opts.deterministic) || opts.deterministic < 0) throw new Error(`deterministic: must be a whole number, got ${opts.deterministic}`);
  if (opts.clock || opts.random) throw new Error('deterministic replaces clock and random: pass one or the other');
  return new Determinism(opts.deterministic);
}

/**
 * mkdir -p, except where the parent exists: there a plain mkdir, because a recursive one
 * spins forever where mkdir answers ENOENT for an existing parent (/proc).
 */
function createDataDir(dataDir: string): void {
  if (!existsSync(dirname(resolve(dataDir)))) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    return;
  }
  try {
    mkdirSync(dataDir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** What pctl keeps in a data dir: a dir holding only these (or nothing) is ours to chmod. */
const DATA_DIR_FILES = new Set(['pctl.db', 'pctl.db-wal', 'pctl.db-shm', 'pctl.db-journal', 'owner.token', 'signing-key.jwk', 'serve.lock', 'serve.pid', 'snapshots']);

/**
 * The data dir is 0700 whatever the umask: it holds keys and every resource. An existing
 * dir open to others is tightened when it holds only pctl's files; one that holds anything
 * else (a home dir, /tmp) is refused and left alone, so `--data /tmp` never chmods /tmp.
 */
function makeDataDirPrivate(dataDir: string): void {
  if ((statSync(dataDir).mode & 0o777) === 0o700) return;
  const others = readdirSync(dataDir).filter((f) => !DATA_DIR_FILES.has(f));
  if (others.length) {
    throw new Error(`the data dir ${dataDir} is open to other users and holds other files (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}); pass --data with a directory of its own`);
  }
  try {
    chmodSync(dataDir, 0o700);
  } catch (err) {
    throw new Error(`cannot make the data dir ${dataDir} private (mode 0700): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; use a directory you own`, { cause: err });
  }
}
