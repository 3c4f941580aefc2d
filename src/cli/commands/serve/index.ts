// pctl serve [export | token | openapi | faults | requests | snapshot | reset]: the local implementation of the API.
import { defineCommand, flag, parsePort } from '../../command.js';

const data = flag.string('--data <dir>', 'data directory', { complete: 'dir' });

const serveFlags = {
  host: { ...flag.string('--host <host>', 'interface to listen on'), default: '127.0.0.1' },
  port: flag.parsed('--port <port>', 'port to listen on (0 picks a free port)', parsePort, { default: 8700 }),
  data,
  publicUrl: flag.string('--public-url <url>', "the URL clients reach serve at, when it is not serve's own (a load balancer in front of replicas): the token issuer"),
  database: flag.string('--database <url>', 'keep the data in PostgreSQL (postgres://USER@HOST:PORT/DB) instead of SQLite in the data dir; several serves on one database are replicas of one state (also PCTL_DATABASE_URL)'),
  seed: flag.string('--seed <file>', 'load groups, identities, repos, tags and advisories from a YAML or JSON file into an empty data dir', { complete: 'file' }),
  demo: flag.bool('--demo', 'load the built-in demo data set into an empty data dir'),
  log: flag.bool('--log', 'log each request to stderr (tokens masked)'),
  rateLimit: flag.string('--rate-limit <rate>', "limits per caller (identity, else client address): fair, fair queuing: 8 requests served at once, 100 more wait their turn, only more than that is refused (429); RATE/UNIT[,BURST] with UNIT s, m or h, e.g. 50/s or 6000/m,200: a token bucket that emulates the API's rate limits (429 with Retry-After); or off (default: fair)"),
  trustIssuer: flag.list('--trust-issuer <url=jwks-file>', 'also accept tokens of another issuer, checked offline against its JWKS file, for identities that name it (repeatable)'),
  audience: flag.list('--audience <aud>', "also answer for tokens of this audience (repeatable); serve always answers for pctl, its URL and its --public-url"),
  trustTestIssuers: flag.bool('--trust-test-issuers', 'TESTS ONLY: the token exchange takes tokens of any issuer signed with this serve\'s key (pctl serve token --as-issuer), to stand in for a CI provider. Off by default; never where others can reach serve'),
  ownerTokenTtl: flag.string('--owner-token-ttl <duration>', 'lifetime of the owner token in DIR/owner.token, e.g. 12h or 7d (default 30d, at most 90d)'),
  fault: flag.list('--fault <rule>', "inject a fault: '[METHOD] PATH (error=CODE | latency=DURATION[-DURATION] | reset | stall) [p=P] [times=N] [seed=N]', or into webhook deliveries: 'delivery=SINK_GLOB (drop | duplicate | latency=DURATION)' (repeatable; see pctl serve faults add)"),
  latency: flag.string('--latency <duration>', 'delay every request: 200ms, or a range such as 50ms-300ms'),
  journal: flag.string('--journal <n>', 'how many requests the journal keeps for pctl serve requests (default 1000; 0 keeps none)'),
  eventRetry: flag.string('--event-retry <duration>', 'webhook deliveries: the wait before the first retry, doubling after each failed attempt up to 300 times it (default 1s; e.g. 20ms in tests)'),
  eventAttempts: flag.string('--event-attempts <n>', 'webhook deliveries: attempts before a delivery is marked failed (default 10)'),
  eventTimeout: flag.string('--event-timeout <duration>', 'webhook deliveries: how long a sink has to answer an attempt (default 10s)'),
  mcpWrites: flag.bool('--mcp-writes', "offer the write tools (create, update, delete, invite redemption) on serve's MCP endpoint, /mcp; without it /mcp only reads. Either way a caller may do only what its role bindings allow"),
  mcpSessionIdle: flag.string('--mcp-session-idle <duration>', 'end an /mcp session no request has used for this long, e.g. 10m or 2h (default 30m); a client then gets 404 and initializes a new one'),
  v1: flag.string('--v1 <on|off>', 'the v1 API beside v2 (deprecated; every answer says so): on (default), or off to answer every v1 call 410 Gone, a rehearsal of the end of the transition'),
  v1Sunset: flag.string('--v1-sunset <date>', 'when v1 ends (YYYY-MM-DD or an RFC 3339 time): sent as the Sunset header of every v1 answer (default: none)'),
  http2Timeouts: flag.string('--http2-timeouts <list>', 'HTTP/2 deadlines, any of preface=D (a new connection\'s first bytes, the preface and SETTINGS; default 10s), headers=D (a header block\'s end; 10s), body=D (a request body\'s end; 120s), idle=D (a connection with no open stream; 65s), e.g. idle=30s,body=1m'),
  http2: flag.string('--http2 <own|node>', "which HTTP/2 server answers h2c (gRPC, REST over HTTP/2): own (default), serve's own; or node, node:http2 (nghttp2), a way out of an incompatibility at about twice the CPU per gRPC call, with nghttp2's bounds and only the idle deadline of --http2-timeouts"),
  allowPrivateSinks: flag.bool('--allow-private-sinks', 'let webhook sinks point at private, link-local and cloud metadata addresses (10/8, 172.16/12, 192.168/16, 169.254/16, fc00::/7, fe80::/10, metadata.google.internal, ...); without it such a sink is refused when created and when its address is resolved. Loopback is always allowed'),
  deterministic: flag.string('--deterministic <seed>', 'reproducible runs: the clock starts at 2026-01-01T00:00:00Z and moves 1s per request, and uids and codes come from SEED (a whole number), so the same requests to a fresh data dir get the same response bodies; tokens still differ (ES256 signatures are randomized). Never for a server others can reach: its codes are predictable'),
};

const tokenFlags = {
  identity: flag.string('--identity <identity>', "the identity: uid, name or uid suffix (its claimMatch.issuer must be this serve); default: the data dir's owner", { complete: { live: 'identities' }, conflicts: 'asIssuer' }),
  asIssuer: flag.string('--as-issuer <url>', 'TESTS ONLY: a workload identity token with this iss (a CI provider\'s URL), signed with serve\'s key; the token exchange takes it only from a serve started with --trust-test-issuers'),
  subject: flag.string('--subject <sub>', 'with --as-issuer: the sub claim'),
  audience: flag.list('--audience <aud>', "with --as-issuer: the aud claim (repeatable; default: serve's issuer URL)"),
  claim: flag.list('--claim <name=value>', 'with --as-issuer: one more claim, e.g. repository=acme/app (repeatable)'),
  ttl: { ...flag.string('--ttl <duration>', 'lifetime, e.g. 30m, 1h, 7d (at most 90d)'), default: '1h' },
  data,
};


export const serveCommand = defineCommand({
  name: 'serve',
  flags: serveFlags,
  help: {
    summary: 'run the local, file-backed implementation of the API',
    description:
      'Run the local, file-backed implementation of the API (SQLite in the data dir). The first start bootstraps an ' +
      'organization, an owner identity, the built-in roles and the owner token, and saves a profile named "local". ' +
      'With --database the data lives in PostgreSQL instead, and several serves on one database are replicas of one state. ' +
      'Limits (--rate-limit): by default each caller (identity, else client address) has 8 requests served at once and up ' +
      'to 100 more wait their turn, callers served in turns, so a sequential script is never refused and no caller can ' +
      "starve another; only a caller with more waiting gets a 429 with Retry-After. --rate-limit 100/s emulates the API's rate " +
      "limits instead (a token bucket per caller: 429 with Retry-After past it); off removes both. serve's control API and the " +
      "console's files are never limited. Every answer carries the RateLimit-Policy and RateLimit fields (docs/limits.md).",
    examples: [
      ['a local API with demo data on the default port', 'pctl serve --demo'],
      ['a throwaway server on a free port, the same uids and times each run', 'pctl serve --port 0 --data "$(mktemp -d)" --deterministic 42'],
      ['one of several replicas of a state kept in PostgreSQL', 'pctl serve --database postgres://pctl@127.0.0.1/pctl --port 8701'],
    ],
  },
  load: async () => {
    const m = await import('./run.js');
    return { run: (ctx, _args, opts) => m.runServe(ctx, opts) };
  },
  subcommands: [
    defineCommand({
      name: 'export',
      flags: { data },
      help: {
        summary: 'print the data dir as a seed file (YAML) on stdout',
        description: 'Print the data dir as a seed file (YAML) on stdout; `pctl serve --seed` loads it back.',
        examples: [['copy a data set', 'pctl serve export --data ./data > seed.yaml']],
      },
      load: async () => {
        const m = await import('./run.js');
        return { run: (ctx, _args, opts) => m.runExport(ctx, opts) };
      },
    }),
    defineCommand({
      name: 'token',
      flags: tokenFlags,
      help: {
        summary: "print a bearer token for an identity of serve's own issuer",
        description: "Print a bearer token for an identity whose claimMatch.issuer is this serve. It needs the data dir (the issuer's key), not the API.",
        examples: [
          ['a one-day token for a test identity', 'pctl serve token --identity ci-bot --ttl 1d --data ./data'],
          ['a fresh owner token (when owner.token has expired)', 'PCTL_TOKEN=$(pctl serve token --ttl 12h --data ./data); export PCTL_TOKEN'],
          ['tests: a GitHub Actions token (serve --trust-test-issuers)', 'pctl serve token --as-issuer https://token.actions.githubusercontent.com --subject repo:acme/app:ref:refs/heads/main --audience http://127.0.0.1:8700 --claim repository=acme/app'],
        ],
      },
      load: async () => {
        const m = await import('./token.js');
        return { run: (ctx, _args, opts) => m.runToken(ctx, opts) };
      },
    }),
    defineCommand({
      name: 'openapi',
      help: {
        summary: 'print the OpenAPI document of the routes serve answers',
        description:
          'Print the OpenAPI 3.1 document of the REST routes serve answers (JSON), the one a running serve sends at ' +
          'GET /openapi.json: the v2 API, the deprecated v1 calls and serve\'s own extensions (x-pctl-extension). ' +
          'Made from proto/; it needs no server.',
        examples: [
          ['generate a client', 'pctl serve openapi > openapi.json && npx @openapitools/openapi-generator-cli generate -i openapi.json -g go -o client'],
          ['the operations of a path', "pctl serve openapi | jq '.paths[\"/iam/v2/groups\"] | keys'"],
        ],
      },
      load: async () => {
        const { openApiDocument } = await import('../../../api/openapi.js');
        return { run: async (ctx) => (ctx.io.stdout.write(openApiDocument()), 0) };
      },
    }),
    defineCommand({
      name: 'faults',
      help: {
        summary: 'inject faults into a running serve (list, add, clear)',
        description:
          "Fault and latency injection of a running `pctl serve`, through its control API (/_pctl/faults, the owner's token). " +
          'A fault never changes data: an error, a reset or a stall answers instead of the API; latency delays the request.',
        examples: [
          ['every third group listing fails with UNAVAILABLE, reproducibly', "pctl serve faults add 'GET /iam/v2/groups* error=14 p=0.33 seed=1'"],
          ['slow down every write', "pctl serve faults add 'POST /* latency=200ms-1s'"],
        ],
      },
      subcommands: [
        defineCommand({
          name: 'list',
          aliases: ['ls'],
          help: {
            summary: 'list the fault rules and how many requests each has hit',
            description: 'List the fault rules of a running serve and how many requests each has hit.',
            examples: [['as JSON', 'pctl serve faults list -o json']],
          },
          load: async () => {
            const m = await import('./faults.js');
            return { run: (ctx) => m.runFaultsList(ctx) };
          },
        }),
        defineCommand({
          name: 'add',
          args: [{ name: '<rule>', description: "'[METHOD] PATH [rpc=SERVICE/METHOD] (error=CODE [retry-after=S] | latency=DURATION[-DURATION] | reset | stall) [p=P] [times=N] [seed=N]'" }],
          help: {
            summary: 'add a fault rule',
            description:
              'Add a fault rule. PATH and rpc are globs (* matches anything). error=CODE answers the AIP-193 code (8 is a 429 with ' +
              'Retry-After, 14 a 503); latency waits, then the request runs; reset cuts the connection; stall never answers. ' +
              'p is the chance a matching request is hit, drawn from a generator seeded by seed (the same requests, the same faults); ' +
              'times stops the rule after N hits.',
            examples: [
              ['the next two creates fail with ABORTED', "pctl serve faults add 'POST /iam/v2/groups error=10 times=2'"],
              ['cut half the ListGroups RPCs', "pctl serve faults add 'rpc=GroupsService/ListGroups reset p=0.5'"],
            ],
          },
          load: async () => {
            const m = await import('./faults.js');
            return { run: (ctx, args) => m.runFaultsAdd(ctx, args[0]!) };
          },
        }),
        defineCommand({
          name: 'clear',
          args: [{ name: '[id]', description: 'one rule to remove (default: every rule)' }],
          help: {
            summary: 'remove fault rules',
            description: 'Remove one fault rule by id, or every rule.',
            examples: [['remove every rule', 'pctl serve faults clear']],
          },
          load: async () => {
            const m = await import('./faults.js');
            return { run: (ctx, args) => m.runFaultsClear(ctx, args[0]) };
          },
        }),
      ],
    }),
    defineCommand({
      name: 'requests',
      flags: {
        follow: flag.bool('-f, --follow', 'keep printing requests as they arrive (Ctrl-C stops)'),
        limit: flag.string('--limit <n>', 'at most this many of the latest requests (default: every one kept)'),
      },
      help: {
        summary: 'show the request journal of a running serve',
        description:
          "Show the last requests a running `pctl serve` answered (its journal, /_pctl/requests; the owner's token): time, method, " +
          'path, status, duration, caller and injected faults; -o json adds the bodies, secrets masked.',
        examples: [
          ['watch requests arrive', 'pctl serve requests --follow'],
          ['the last ten, with bodies', 'pctl serve requests --limit 10 -o json'],
        ],
      },
      load: async () => {
        const m = await import('./requests.js');
        return { run: (ctx, _args, opts) => m.runRequests(ctx, opts) };
      },
    }),
    defineCommand({
      name: 'v1-callers',
      aliases: ['v1-report'],
      help: {
        summary: 'who still calls the v1 API of a running serve, and what to call instead',
        description:
          "Who still calls v1 on a running `pctl serve`, from its request journal (/_pctl/v1-callers; the owner's token): one row " +
          'per caller identity and v1 call, with how many times and when last it was called in the journal\'s window, and the v2 ' +
          'call to use instead. The window is what the journal keeps (serve --journal N).',
        examples: [
          ['before the sunset: who still calls v1', 'pctl serve v1-callers'],
          ['as JSON, for a migration tracker', 'pctl serve v1-callers -o json'],
        ],
      },
      load: async () => {
        const m = await import('./v1-callers.js');
        return { run: (ctx) => m.runV1Callers(ctx) };
      },
    }),
    defineCommand({
      name: 'snapshot',
      aliases: ['snapshots'],
      help: {
        summary: "save and restore a running serve's data (save, list, restore, delete)",
        description:
          "Snapshots of a running `pctl serve`'s data, through its control API (/_pctl/snapshots, the owner's token). A snapshot " +
          "is one SQLite file, DATA_DIR/snapshots/NAME.db, taken with SQLite's online backup while serve keeps answering. " +
          'A restore replaces every resource in one transaction: requests see the data before it or after it, never between. ' +
          '`pctl serve reset --live` goes back to the data the data dir was created with.',
        examples: [
          ['a clean state to come back to between tests', 'pctl serve snapshot save clean && pctl serve snapshot restore clean --yes'],
          ['the snapshots of the current profile\'s serve', 'pctl serve snapshot list'],
        ],
      },
      subcommands: [
        defineCommand({
          name: 'save',
          args: [{ name: '<name>', description: 'the snapshot\'s name: 1 to 64 of a-z, 0-9, ".", "_" and "-", starting with a letter or digit' }],
          flags: { force: flag.bool('--force', 'replace a snapshot of the same name') },
          help: {
            summary: 'save the data of a running serve as a snapshot',
            description: 'Save the data of a running serve as snapshot NAME (DATA_DIR/snapshots/NAME.db), consistent while requests keep coming. An existing NAME is an error unless --force.',
            examples: [['before a test run', 'pctl serve snapshot save before-run']],
          },
          load: async () => {
            const m = await import('./snapshot/save.js');
            return { run: (ctx, args, opts) => m.runSnapshotSave(ctx, args[0]!, opts) };
          },
        }),
        defineCommand({
          name: 'list',
          aliases: ['ls'],
          help: {
            summary: 'list the snapshots of a running serve',
            description: 'List the snapshots of a running serve: name, size in bytes and when each was saved (by serve\'s clock).',
            examples: [['as JSON', 'pctl serve snapshot list -o json']],
          },
          load: async () => {
            const m = await import('./snapshot/list.js');
            return { run: (ctx) => m.runSnapshotList(ctx) };
          },
        }),
        defineCommand({
          name: 'restore',
          args: [{ name: '<name>', description: 'the snapshot to restore' }],
          help: {
            summary: 'replace the data of a running serve with a snapshot',
            description:
              'Replace every resource of a running serve with those of snapshot NAME, in one transaction, without a restart. ' +
              'Writes that arrive while it runs land before it (and are replaced) or after it (on top of the snapshot). ' +
              "The owner token keeps working. Asks for confirmation on a terminal unless --yes.",
            examples: [['back to a saved state', 'pctl serve snapshot restore before-run --yes']],
          },
          load: async () => {
            const m = await import('./snapshot/restore.js');
            return { run: (ctx, args) => m.runSnapshotRestore(ctx, args[0]!) };
          },
        }),
        defineCommand({
          name: 'delete',
          aliases: ['rm'],
          args: [{ name: '<name>', description: 'the snapshot to delete' }],
          help: {
            summary: 'delete a snapshot',
            description: "Delete snapshot NAME (the serve's data is untouched). Asks for confirmation on a terminal unless --yes.",
            examples: [['remove one', 'pctl serve snapshot delete before-run --yes']],
          },
          load: async () => {
            const m = await import('./snapshot/delete.js');
            return { run: (ctx, args) => m.runSnapshotDelete(ctx, args[0]!) };
          },
        }),
      ],
    }),
    defineCommand({
      name: 'reset',
      flags: {
        data,
        live: flag.bool('--live', "reset the running serve of the current profile, through its control API, instead of a stopped serve's data dir"),
      },
      help: {
        summary: 'delete all data in the data dir, or reset a running serve (--live)',
        description:
          'Delete all data in the data dir, its snapshots too; the next start bootstraps again (a new organization). ' +
          'With --live, a running serve goes back to the data its data dir was created with (its seed, or the plain ' +
          'bootstrap: the same uids), without a restart; the owner token keeps working. A data dir created before pctl ' +
          'kept that state (DATA_DIR/snapshots/.initial.db) cannot be reset live. Asks for confirmation on a terminal unless --yes.',
        examples: [
          ['start over', 'pctl serve reset --data ./data'],
          ['between two test runs, with serve running', 'pctl serve reset --live --yes'],
        ],
      },
      load: async () => ({
        run: async (ctx, _args, opts) =>
          opts.live ? (await import('./reset-live.js')).runLiveReset(ctx, opts) : (await import('./run.js')).runReset(ctx, opts),
      }),
    }),
  ],
});
