// Hostile input: a bounded, seeded fuzz run against a real `pctl serve` child. Thousands of
// requests of malformed JSON, wrong types, huge and deeply nested bodies, odd unicode and
// control characters, path traversal, SQL-looking strings in every parameter and field,
// bad page_size/skip, forged page tokens, prototype-property names, random methods and
// routes, with and without auth; then a few hundred malformed raw HTTP requests on bare
// sockets. Asserts: no 5xx, every error is a bare AIP-193 google.rpc.Status, the server
// neither crashes nor stops answering, and the data set changed only by the requests that
// got a 2xx (each accounted for).
//
// Replay a run: FUZZ_SEED=<seed> npm run test:stress -- -m '*fuzz*'  (FUZZ_SEED=random picks one)
import test from 'ava';
import { connect } from 'node:net';
import { Client, G, I, RB, ROLES, cleanup, listAll, prng, snapshot, startServe, statusProblem, stopServe, tempDir, type Res, type Rng } from './helpers.js';
import { CONSOLE_PATHS } from '../../src/server/surfaces/console.js';

const SEED = process.env.FUZZ_SEED === 'random'
  ? Math.floor(Math.random() * 2 ** 32)
  : Number(process.env.FUZZ_SEED ?? 0x5eed2026);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 4000);
const BATCH = 8; // requests in flight at once
const MAX_BODY = 1024 * 1024;

test.after.always(cleanup);

const REPOS = '/registry/v2/repos';
const TAGS = '/registry/v2/tags';
const ADV = '/vulnerabilities/v2/advisories';
const COLLECTIONS = [G, G, G, I, I, RB, RB, ROLES, REPOS, TAGS, ADV];
const BOGUS_PATHS = [
  '/', '/iam', '/iam/v2', '/iam/v2/', '/iam/v1/groups', '/iam/v2/nope', '/IAM/V2/GROUPS', '//iam/v2/groups', '/iam/v2/groups/',
  '/iam/v2/groups?', '/iam/v2/groups#frag', '/iam//v2/groups', '/favicon.ico', '/.well-known/openid-configuration', '/.git/config',
  '/iam/v2/../v2/groups', '/iam/v2/%2e%2e/v2/groups', '/%2e%2e/%2e%2e/etc/passwd', '/../../owner.token', '/iam/v2/groups/../../../pctl.db',
  '/registry/v2/tags/', '/vulnerabilities/v2', '/advisory/v2/x', '/libraries/v2/x', '/iam/v2/groups;jsessionid=1', '/iam/v2/groups%00',
];

const SQL = [
  "' OR '1'='1", "'; DROP TABLE resources; --", '" OR 1=1 --', "1) UNION SELECT key, value FROM meta --", "%' --", "\\'; SELECT sqlite_version(); --",
  "*", "kind = 'group'", "uid", "name desc; DELETE FROM resources", "' AND (SELECT count(*) FROM resources) > 0 --", "1; ATTACH DATABASE '/tmp/x' AS x; --",
  "') OR ('a'='a", 'NULL', "%", "_",
];
const UNICODE = [
  '\u0000', 'a\u0000b', '\u202egnp.exe', '😀', '\ud800', 'x\udfffy', 'é', 'e\u0301', '\u200b', '\ufeff', '\r\n', '\t', '\u001b[31mred', 'ｇｒｏｕｐ', 'İı',
  '\u2028\u2029', '\u0085', '\uffff', '\u{10ffff}', '𝕒𝕓𝕔', 'ﷺ', '\u0007', '\b\f',
];
const PROTO = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf', '__defineGetter__'];
const TRAVERSAL = [
  '..', '../', '../../owner.token', '%2e%2e', '%2e%2e%2f', '..%2F..%2Fpctl.db', '%2F..%2F', '....//', '..\\..\\', '%252e%252e', '/etc/passwd',
  'C:\\windows\\win.ini', '.%2e/', '%2e./%2e./serve.lock', '..;/', '%c0%ae%c0%ae/',
];
const PLAIN = ['', ' ', '.', '/', '//', '%00', '%2F', 'NaN', 'null', 'undefined', 'true', '[]', '{}', '-1', '1e309', 'a'.repeat(5000), 'x'.repeat(70)];
const HOSTILE = [...SQL, ...UNICODE, ...PROTO, ...TRAVERSAL, ...PLAIN];

const PAGE_NUMBERS = ['-1', '0', '1', '2', '200', '201', '1000000', '1e3', '0x10', '1.5', '', ' 5 ', 'abc', '9007199254740993', '99999999999999999999', '٣', '+5', '-0', '00010', '1000000000000', 'Infinity', '5,5'];
const ORDER_BYS = ['name', 'name desc', 'name  desc', 'created_at desc', 'uid asc', 'updated_at', 'constructor', '__proto__', 'toString desc', 'name; DROP TABLE resources', 'uid asc asc', 'name DESC', "name' --", '', 'createTime desc', 'data', 'kind'];
const PARAM_NAMES = ['page_size', 'pageSize', 'page_token', 'order_by', 'skip', 'uidp.descendants_of', 'uidp.children_of', 'name', 'artifactNames', 'advisoryIds', 'updateMask', 'filter', ...PROTO, "name'--", ''];
const METHODS = ['GET', 'GET', 'GET', 'POST', 'POST', 'PATCH', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS', 'PROPFIND', 'PURGE', 'FOO', 'get'];

const MALFORMED_JSON = [
  '{', '{"parent":', '{parent: 1}', "{'a':1}", '[1,2,', '{"a":1,}', 'NaN', '\ufeff{}', 'nul', '"unterminated', '{"a":"\\x"}', '{"a":1}{"b":2}',
  '', ' ', '\u0000', '{"parent":"x","group":{"name":"a"}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '1e400', '-', '{"a":01}',
];

interface Ctx {
  org: string;
  ownerIdentity: string;
  ownerBinding: string;
  roles: string[];
  /** Fixture and fuzz-created resources that may be targeted by mutations. */
  groups: string[];
  identities: string[];
  bindings: string[];
  repos: string[];
  tokens: string[];
}

interface FuzzRequest {
  method: string;
  path: string;
  body?: string | Buffer;
  headers: Record<string, string>;
  auth: 'owner' | 'none' | 'custom';
  kind: string;
}

function encodeAll(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s.replace(/[^\w]/g, (ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`.slice(0, 3));
  }
}

/** A string undici will put in a path as is: printable latin-1 and nothing else. */
function rawSafe(s: string): string {
  return [...s].map((ch) => (/^[\u0021-\u00ff]$/.test(ch) && ch !== '?' && ch !== '#' ? ch : encodeAll(ch))).join('');
}

function hostileString(r: Rng): string {
  const base = r.pick(HOSTILE);
  if (r.chance(0.3)) return base + r.pick(HOSTILE);
  if (r.chance(0.1)) return `${r.pick(['grp', 'a b', 'x.y', 'z-1'])}${base}`;
  return base;
}

function wrongType(r: Rng): unknown {
  return r.pick<unknown>([0, -1, 1.5, 1e308, true, false, null, [], [1, 'a'], {}, { a: 1 }, '', [[[]]], { name: 'x' }, Number.MAX_SAFE_INTEGER]);
}

function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}
function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

function itemSegment(r: Rng, ctx: Ctx): string {
  const real = r.pick([ctx.org, ...ctx.groups, ...ctx.identities, ...ctx.bindings, ...ctx.roles, ...ctx.repos].filter(Boolean));
  switch (r.int(9)) {
    case 0: return real;
    case 1: return real.replaceAll('/', '%2F');
    case 2: return `${real}/..`;
    case 3: return `${real}/../${r.pick([ctx.org, ctx.ownerIdentity])}`;
    case 4: return rawSafe(r.pick(TRAVERSAL));
    case 5: return encodeAll(hostileString(r));
    case 6: return rawSafe(hostileString(r)) || 'x';
    case 7: return r.pick(['%ff', '%c3', '%', '%zz', '%%', '%ed%a0%80', '%c0%af', '%e2%82', '%2']);
    default: return `${real}${r.pick(['/', '//', '%00', '%2F..%2F', '/x', '%20', '.json', '?x=1'])}`;
  }
}

function queryString(r: Rng, ctx: Ctx): string {
  const n = r.int(4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = r.chance(0.8) ? r.pick(PARAM_NAMES) : hostileString(r);
    let value: string;
    if (name === 'page_size' || name === 'skip' || name === 'pageSize') value = r.pick(PAGE_NUMBERS);
    else if (name === 'order_by') value = r.pick(ORDER_BYS);
    else if (name === 'page_token') value = r.pick(forgedTokens(r, ctx));
    else if (name.startsWith('uidp.')) value = r.chance(0.4) ? r.pick([ctx.org, ...ctx.groups]) : hostileString(r);
    else value = hostileString(r);
    parts.push(`${encodeAll(name)}=${r.chance(0.1) ? rawSafe(value) : encodeAll(value)}`);
  }
  if (r.chance(0.05)) parts.push(r.pick(['%', '&&&', '=', 'a=%zz', 'page_size', '=x', 'a=b=c']));
  return parts.length ? `?${parts.join('&')}` : '';
}

function forgedTokens(r: Rng, ctx: Ctx): string[] {
  const real = r.pick(ctx.tokens);
  const [body = '', sig = ''] = real.split('.');
  const flip = (s: string) => {
    if (!s) return 'x';
    const i = r.int(s.length);
    return s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  };
  const forgedBody = Buffer.from(JSON.stringify({ q: 'x', k: ["' OR 1=1 --", '\u0000'], t: Date.now() })).toString('base64url');
  return [
    real, `${flip(body)}.${sig}`, `${body}.${flip(sig)}`, `${body}.`, `.${sig}`, `${body}.${sig}.${sig}`, `${forgedBody}.${sig}`,
    `${body}.é${sig.slice(1)}`, `${body}.${'😀'.repeat(11)}`, 'a.b', '...', '.', '', 'é.é', 'x'.repeat(100_000),
    Buffer.from('{"q":1}').toString('base64'), `${body}==.${sig}`, hostileString(r),
  ];
}

function createBody(r: Rng, ctx: Ctx, collection: string): unknown {
  const parent = r.chance(0.7) ? r.pick([ctx.org, ...ctx.groups]) : hostileString(r);
  if (collection === I) {
    return { parent, identity: { name: hostileString(r), description: hostileString(r), claimMatch: { issuer: r.pick(['https://issuer.example', hostileString(r), 'javascript:alert(1)', 'file:///etc/passwd']), subject: hostileString(r) } } };
  }
  if (collection === RB) {
    return { parent, roleBinding: { identityUid: r.chance(0.5) ? r.pick([ctx.ownerIdentity, ...ctx.identities]) : hostileString(r), roleUid: r.chance(0.5) ? r.pick(ctx.roles) : hostileString(r) } };
  }
  return { parent, group: { name: r.chance(0.5) ? hostileString(r) : r.pick(['ok', 'a b', 'x.y_z-1', '0']), description: hostileString(r) } };
}

/** Replaces one field (at any depth) of a plausible body with a wrong-typed or hostile value, or adds one. */
function mutate(r: Rng, body: unknown): unknown {
  const clone = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const paths: string[][] = [];
  const walk = (o: unknown, p: string[]) => {
    if (!o || typeof o !== 'object') return;
    for (const k of Object.keys(o)) {
      paths.push([...p, k]);
      walk((o as Record<string, unknown>)[k], [...p, k]);
    }
  };
  walk(clone, []);
  const path = paths.length ? r.pick(paths) : ['x'];
  let cur: Record<string, unknown> = clone;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string, unknown>;
  const last = path[path.length - 1]!;
  switch (r.int(4)) {
    case 0: cur[last] = wrongType(r); break;
    case 1: delete cur[last]; break;
    case 2: cur[r.pick([...PROTO, hostileString(r)])] = wrongType(r); break;
    default: cur[last] = hostileString(r);
  }
  return clone;
}

function patchBody(r: Rng, collection: string): unknown {
  const fields = collection === I ? ['name', 'description', 'claimMatch'] : ['name', 'description'];
  const out: Record<string, unknown> = {};
  for (const f of fields) if (r.chance(0.5)) out[f] = f === 'claimMatch' ? { subject: hostileString(r) } : r.chance(0.8) ? hostileString(r) : wrongType(r);
  if (r.chance(0.2)) out[r.pick(['uid', 'createTime', 'verified', ...PROTO, hostileString(r)])] = wrongType(r);
  return out;
}

function bodyFor(r: Rng, ctx: Ctx, method: string, collection: string, isItem: boolean): { body?: string | Buffer; kind: string } {
  const roll = r.int(20);
  if (roll === 0) return { body: r.pick(MALFORMED_JSON), kind: 'malformed-json' };
  if (roll === 1) return { body: Buffer.from(Array.from({ length: 1 + r.int(64) }, () => r.int(256))), kind: 'random-bytes' };
  if (roll === 2) return { body: r.chance(0.5) ? deepArray(100_000) : deepObject(50_000), kind: 'deep-nesting' };
  if (roll === 3) {
    const deep = r.chance(0.5) ? deepArray(100_000) : deepObject(30_000);
    return { body: `{"parent":${deep},"group":{"name":"a","description":${deep}}}`, kind: 'deep-nesting-field' };
  }
  if (roll === 4) return { body: JSON.stringify({ parent: ctx.org, group: { name: 'huge', description: 'x'.repeat(900_000) } }), kind: 'huge-field' };
  if (roll === 5) return { body: JSON.stringify({ parent: ctx.org, group: { name: 'over', description: 'x'.repeat(MAX_BODY + r.int(300_000)) } }), kind: 'oversized-body' };
  if (roll === 6) return { body: `[${'{"a":"b"},'.repeat(60_000)}1]`, kind: 'huge-array' };
  if (method === 'PATCH' || isItem) {
    const b = patchBody(r, collection);
    return { body: JSON.stringify(r.chance(0.3) ? mutate(r, b) : b), kind: 'patch-body' };
  }
  const b = createBody(r, ctx, collection);
  return { body: JSON.stringify(r.chance(0.6) ? mutate(r, b) : b), kind: 'create-body' };
}

function authHeaders(r: Rng, token: string): { headers: Record<string, string>; auth: FuzzRequest['auth'] } {
  const roll = r.int(12);
  if (roll < 8) return { headers: { authorization: `Bearer ${token}` }, auth: 'owner' };
  if (roll === 8) return { headers: {}, auth: 'none' };
  const value = r.pick([
    'Bearer', 'Bearer ', `Bearer ${token} junk`, `Basic ${Buffer.from('admin:admin').toString('base64')}`, `Bearer ${token.slice(0, -1)}`,
    "Bearer ' OR 1=1 --", `bearer ${token}x`, 'Bearer ../../owner.token', `Bearer ${'a'.repeat(8000)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJvd25lciJ9.',
    `Token ${token}`, 'Bearer null', '',
  ]);
  return { headers: { authorization: value }, auth: 'custom' };
}

function nextRequest(r: Rng, ctx: Ctx, token: string): FuzzRequest {
  const { headers, auth } = authHeaders(r, token);
  if (r.chance(0.08)) {
    return { method: r.pick(METHODS), path: r.pick(BOGUS_PATHS) + (r.chance(0.3) ? queryString(r, ctx) : ''), headers, auth, kind: 'bogus-route' };
  }
  const collection = r.pick(COLLECTIONS);
  const method = r.pick(METHODS);
  const isItem = method === 'PATCH' || method === 'DELETE' ? r.chance(0.9) : r.chance(0.4);
  const path = isItem ? `${collection}/${itemSegment(r, ctx)}` : collection + queryString(r, ctx);
  const req: FuzzRequest = { method, path: isItem && r.chance(0.3) ? path + queryString(r, ctx) : path, headers, auth, kind: `${method} ${isItem ? 'item' : 'collection'}` };
  if (method !== 'GET' && method !== 'HEAD' && method !== 'get' ? r.chance(0.95) : r.chance(0.05)) {
    if (method === 'HEAD') return req;
    const { body, kind } = bodyFor(r, ctx, method, collection, isItem);
    req.body = body;
    req.kind += ` ${kind}`;
    const ct = r.int(10);
    if (ct < 7) req.headers['content-type'] = 'application/json';
    else if (ct === 7) req.headers['content-type'] = 'text/plain';
    else if (ct === 8) req.headers['content-type'] = 'application/json; charset=latin1';
  }
  return req;
}

/** A valid request that changes data, mixed into the fuzz so accounting has real 2xx writes to track. */
function validWrite(r: Rng, ctx: Ctx, token: string): FuzzRequest {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const roll = r.int(10);
  const oddName = r.pick([...SQL, ...UNICODE, ...PROTO, ...TRAVERSAL.filter(Boolean)]);
  if (roll < 4 || !ctx.groups.length) {
    const name = r.pick(['fuzz grp', 'fuzz.', "fuzz-' or 1=1 --".replace(/[^a-z0-9 ._-]/g, '_'), `fuzz-${r.int(1e6)}`, '..', '.', '-', '__proto__']);
    return { method: 'POST', path: G, headers, auth: 'owner', kind: 'valid create group', body: JSON.stringify({ parent: r.pick([ctx.org, ...ctx.groups]), group: { name, description: oddName } }) };
  }
  if (roll < 6) {
    return {
      method: 'POST', path: I, headers, auth: 'owner', kind: 'valid create identity',
      body: JSON.stringify({ parent: r.pick(ctx.groups), identity: { name: oddName || 'x', description: r.pick(SQL), claimMatch: { issuer: 'https://issuer.example/fuzz', subject: `${oddName}-${r.int(1e9)}` } } }),
    };
  }
  if (roll < 7 && ctx.identities.length) {
    return { method: 'POST', path: RB, headers, auth: 'owner', kind: 'valid create roleBinding', body: JSON.stringify({ parent: r.pick(ctx.groups), roleBinding: { identityUid: r.pick(ctx.identities), roleUid: r.pick(ctx.roles) } }) };
  }
  if (roll < 9) {
    const target = r.pick(ctx.groups);
    return { method: 'PATCH', path: `${G}/${r.chance(0.5) ? target : target.replaceAll('/', '%2F')}`, headers, auth: 'owner', kind: 'valid patch group', body: JSON.stringify({ description: oddName }) };
  }
  const pool = r.pick([ctx.bindings, ctx.identities, ctx.groups].filter((p) => p.length));
  const coll = pool === ctx.bindings ? RB : pool === ctx.identities ? I : G;
  return { method: 'DELETE', path: `${coll}/${r.pick(pool)}`, headers: { authorization: headers.authorization }, auth: 'owner', kind: 'valid delete' };
}

/** A mutation never touches the bootstrap owner (org, owner identity and binding): the test needs its token to keep working. */
function protectsOwner(req: FuzzRequest, ctx: Ctx): boolean {
  if (req.method !== 'DELETE' && req.method !== 'PATCH' && req.method !== 'PUT') return false;
  let decoded = req.path;
  try {
    decoded = decodeURIComponent(req.path.split('?')[0]!);
  } catch { /* undecodable: the server refuses it */ }
  return decoded.includes(ctx.ownerIdentity) || decoded.includes(ctx.ownerBinding);
}

interface Outcome { req: FuzzRequest; res?: Res; error?: string; index: number }

test.serial('fuzz: hostile requests never get a 5xx or an unstructured error, and change nothing unaccounted', async (t) => {
  t.log(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED}), ${REQUESTS} requests`);
  const dataDir = tempDir('pctl-stress-fuzz-');
  const srv = await startServe(dataDir);
  const c = new Client(srv.url, srv.token, BATCH);
  t.teardown(() => c.close().catch(() => {}));

  // A small fixture to aim at, made by valid requests before the "before" snapshot.
  const org = (await c.req('GET', `${G}?page_size=1`)).json.groups[0].uid as string;
  const roles = (await c.req('GET', ROLES)).json.roles.map((x: { uid: string }) => x.uid) as string[];
  const ownerBinding = (await c.req('GET', RB)).json.roleBindings[0];
  const ctx: Ctx = { org, ownerIdentity: ownerBinding.identity.uid, ownerBinding: ownerBinding.uid, roles, groups: [], identities: [], bindings: [], repos: [], tokens: [] };
  for (let i = 0; i < 6; i++) {
    const res = await c.req('POST', G, { parent: i < 3 ? org : ctx.groups[i - 3], group: { name: `fixture ${i}`, description: 'fixture' } });
    t.is(res.status, 200, res.text);
    ctx.groups.push(res.json.uid);
  }
  for (let i = 0; i < 4; i++) {
    const res = await c.req('POST', I, { parent: ctx.groups[i], identity: { name: `fixture ${i}`, claimMatch: { issuer: 'https://issuer.example', subject: `fixture-${i}` } } });
    t.is(res.status, 200, res.text);
    ctx.identities.push(res.json.uid);
    const b = await c.req('POST', RB, { parent: ctx.groups[i], roleBinding: { identityUid: res.json.uid, roleUid: roles[i % roles.length] } });
    t.is(b.status, 200, b.text);
    ctx.bindings.push(b.json.uid);
  }
  for (const q of ['page_size=1', 'page_size=1&order_by=name', 'page_size=2&order_by=created_at%20desc', `page_size=1&uidp.descendants_of=${org}`]) {
    const res = await c.req('GET', `${G}?${q}`);
    ctx.tokens.push(res.json.nextPageToken);
  }
  ctx.tokens.push((await c.req('GET', `${ROLES}?page_size=1`)).json.nextPageToken);
  ctx.repos.push(...((await c.req('GET', REPOS)).json.repos ?? []).map((x: { uid: string }) => x.uid));
  const before = await snapshot(c);

  // The fuzz: batches of BATCH requests in flight; request shapes come from the seed alone.
  const r = prng(SEED);
  const outcomes: Outcome[] = [];
  const t0 = performance.now();
  for (let start = 0; start < REQUESTS; start += BATCH) {
    const batch: FuzzRequest[] = [];
    for (let i = start; i < Math.min(start + BATCH, REQUESTS); i++) {
      let req = r.chance(0.1) ? validWrite(r, ctx, srv.token) : nextRequest(r, ctx, srv.token);
      while (protectsOwner(req, ctx)) req = nextRequest(r, ctx, srv.token);
      batch.push(req);
    }
    const results = await Promise.all(batch.map(async (req, k): Promise<Outcome> => {
      const index = start + k;
      try {
        const res = await c.req(req.method, req.path, req.body, { headers: req.headers, auth: false, raw: true });
        return { req, res, index };
      } catch (e) {
        return { req, error: `${(e as Error).name}: ${(e as Error).message}`, index };
      }
    }));
    for (const o of results) {
      outcomes.push(o);
      // Later requests aim at what the fuzz itself created.
      if (o.res && o.res.status === 200 && o.req.method === 'POST' && o.res.json?.uid) {
        const coll = o.req.path.split('?')[0];
        if (coll === G) ctx.groups.push(o.res.json.uid);
        if (coll === I) ctx.identities.push(o.res.json.uid);
        if (coll === RB) ctx.bindings.push(o.res.json.uid);
      }
    }
    if (srv.child.exitCode !== null) {
      t.fail(`serve exited (code ${srv.child.exitCode}) during batch ${start}..${start + BATCH - 1} (seed ${SEED}); stderr: ${srv.stderr().slice(-2000)}`);
      return;
    }
  }
  const fuzzMs = performance.now() - t0;

  // Every answer: no 5xx; every non-2xx carries a bare google.rpc.Status.
  const fivexx = outcomes.filter((o) => o.res && o.res.status >= 500);
  const unstructured = outcomes.filter((o) => o.res && o.res.status >= 300 && o.req.method !== 'HEAD' && statusProblem(o.res.json));
  // A body over the limit may be refused (413 + Connection: close) before undici has sent it all;
  // undici then reports the closed socket instead of the 413. Nothing else may fail on the wire.
  // Likewise a method node's parser rejects (FOO, get): the 400 goes out and the socket closes
  // at the request line, while a large body may still be on its way.
  const refusedEarly = (o: Outcome) => Boolean(o.req.body) && (o.req.body!.length > MAX_BODY || ((o.req.method === 'FOO' || o.req.method === 'get') && o.req.body!.length > 16_384));
  const transportErrors = outcomes.filter((o) => o.error && !refusedEarly(o));
  const show = (os: Outcome[]) => os.slice(0, 5).map((o) => `#${o.index} ${o.req.method} ${o.req.path.slice(0, 200)} [${o.req.kind}] body=${String(o.req.body ?? '').slice(0, 120)} → ${o.res ? `${o.res.status} ${o.res.text.slice(0, 300)}` : o.error}`).join('\n');
  t.is(fivexx.length, 0, `5xx responses (seed ${SEED}):\n${show(fivexx)}`);
  t.is(unstructured.length, 0, `non-2xx without an AIP-193 body (seed ${SEED}):\n${show(unstructured)}`);
  t.is(transportErrors.length, 0, `requests that got no HTTP answer (seed ${SEED}):\n${show(transportErrors)}`);
  // Public by design: OIDC discovery and the console's static files (the page signs in by itself).
  const isPublic = (path: string) => path.startsWith('/.well-known') || CONSOLE_PATHS.includes(path.split('?')[0]!);
  const unauth = outcomes.filter((o) => o.req.auth !== 'owner' && o.res && o.res.status < 300 && !isPublic(o.req.path));
  t.is(unauth.length, 0, `requests without the owner token that succeeded:\n${show(unauth)}`);
  const leaked = outcomes.filter((o) => o.res && o.res.text.includes(srv.token));
  t.is(leaked.length, 0, 'no response echoes the owner token');
  // Error messages may quote the request back, but never SQLite's errors, a stack or a stored secret.
  const internals = /page_token_key|owner_token_sha256|SQLITE_[A-Z]{3,}|no such (column|table)|syntax error|at file:\/\/|\.[jt]s:\d+:\d+/;
  const secretLeak = outcomes.filter((o) => o.res && o.res.status >= 300 && internals.test(String(o.res.json?.message ?? o.res.text)));
  t.is(secretLeak.length, 0, `no response shows SQL errors, stack traces or secrets:\n${show(secretLeak)}`);

  // Raw sockets: requests no HTTP client library would send.
  const raw = await rawHttpFuzz(srv.url, srv.token, r);
  const rawBad = raw.filter((x) => x.problem);
  t.deepEqual(rawBad.map((x) => `${JSON.stringify(x.payload.slice(0, 80))} → ${x.problem}`), [], `raw HTTP (seed ${SEED})`);
  t.is(srv.child.exitCode, null, 'serve survived the raw requests');

  // Still answering, normally.
  const alive = await c.req('GET', `${G}/${org}`);
  t.is(alive.status, 200);

  // The data set: the "before" snapshot plus exactly the effects of the 2xx writes.
  const after = await snapshot(c);
  const expected = {
    groups: new Map(before.groups), identities: new Map(before.identities), roleBindings: new Map(before.roleBindings),
  };
  const states = new Map<string, Record<string, unknown>[]>(); // uid → every state a 2xx reported
  let writes2xx = 0;
  for (const o of outcomes) {
    if (!o.res || o.res.status >= 300 || ['GET', 'HEAD', 'get', 'OPTIONS'].includes(o.req.method)) continue;
    writes2xx++;
    const coll = o.req.path.split('?')[0]!.split('/').slice(0, 4).join('/');
    const target = coll === G ? expected.groups : coll === I ? expected.identities : coll === RB ? expected.roleBindings : undefined;
    if (!target) {
      t.fail(`a 2xx ${o.req.method} outside the IAM collections: ${o.req.path}`);
      continue;
    }
    if (o.req.method === 'POST' || o.req.method === 'PATCH') {
      const uid = o.res.json.uid as string;
      target.set(uid, o.res.json);
      states.set(uid, [...(states.get(uid) ?? []), o.res.json]);
    } else if (o.req.method === 'DELETE') {
      const seg = o.req.path.split('?')[0]!.slice(coll.length + 1);
      const uid = decodeURIComponent(seg);
      t.true(target.delete(uid), `DELETE ${o.req.path} got ${o.res.status} for a uid that was not there`);
      if (coll === I) for (const [bu, b] of expected.roleBindings) if ((b.identity as { uid: string }).uid === uid) expected.roleBindings.delete(bu);
    } else {
      t.fail(`a 2xx ${o.req.method} ${o.req.path}`);
    }
  }
  const sameKeys = (a: Map<string, unknown>, b: Map<string, unknown>) => [[...a.keys()].filter((k) => !b.has(k)), [...b.keys()].filter((k) => !a.has(k))];
  for (const kind of ['groups', 'identities', 'roleBindings'] as const) {
    const [unexpected, missing] = sameKeys(after[kind], expected[kind]);
    t.deepEqual(unexpected, [], `${kind} present that no 2xx created`);
    t.deepEqual(missing, [], `${kind} missing that no 2xx deleted`);
  }
  for (const kind of ['groups', 'identities'] as const) {
    for (const [uid, now] of after[kind]) {
      const seen = states.get(uid);
      if (!seen) t.deepEqual(now, before[kind].get(uid), `${kind} ${uid} is unchanged`);
      else t.true(seen.some((s) => JSON.stringify(s) === JSON.stringify(now)), `${kind} ${uid} is in a state a 2xx reported: ${JSON.stringify(now).slice(0, 300)} vs ${JSON.stringify(seen).slice(0, 600)}`);
    }
  }
  // Bindings expand the names of their identity and group, which may have been patched: compare the references.
  const refs = (b: Record<string, unknown>) => JSON.stringify([b.uid, (b.identity as { uid: string }).uid, (b.group as { uid: string }).uid, (b.role as { uid: string }).uid, b.createTime]);
  for (const [uid, now] of after.roleBindings) t.is(refs(now), refs(expected.roleBindings.get(uid)!));
  t.deepEqual([...after.roles.entries()], [...before.roles.entries()], 'roles unchanged');
  const lists = await listAll(c, G, 'groups', {}, 13);
  t.deepEqual(lists.totals, [String(after.groups.size)], 'totalCount still equals the real count');

  t.notRegex(srv.stderr(), /internal error/i, 'serve logged no internal error');
  const stopped = await stopServe(srv);
  t.is(stopped.code, 0, 'serve still shuts down cleanly');

  const byStatus = new Map<number | string, number>();
  for (const o of outcomes) byStatus.set(o.res?.status ?? 'closed', (byStatus.get(o.res?.status ?? 'closed') ?? 0) + 1);
  t.log(`${outcomes.length} fuzz requests in ${(fuzzMs / 1000).toFixed(1)} s (${Math.round(outcomes.length / (fuzzMs / 1000))}/s) + ${raw.length} raw HTTP requests; ` +
    `statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort()))}; ${writes2xx} 2xx writes accounted for; ` +
    `groups ${before.groups.size} → ${after.groups.size}, identities ${before.identities.size} → ${after.identities.size}, role bindings ${before.roleBindings.size} → ${after.roleBindings.size}`);
});

// ---- raw HTTP on bare sockets ----

interface RawResult { payload: string; problem?: string }

/** Sends one payload on a fresh connection; returns the raw response ('' when the server just closed). */
function rawExchange(port: number, payload: Buffer, waitMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const sock = connect(port, '127.0.0.1');
    const done = () => {
      clearTimeout(timer);
      sock.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, waitMs);
    sock.on('data', (d) => {
      chunks.push(d);
      // One response is enough: stop once its declared body is in.
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const len = /content-length: *(\d+)/i.exec(text.slice(0, head));
      if (head !== -1 && len && text.length >= head + 4 + Number(len[1])) done();
    });
    sock.on('error', () => {});
    sock.on('close', done);
    sock.write(payload);
  });
}

async function rawHttpFuzz(url: string, token: string, r: Rng): Promise<RawResult[]> {
  const port = Number(new URL(url).port);
  const auth = `Authorization: Bearer ${token}\r\n`;
  const complete: string[] = [
    'FOO /iam/v2/groups HTTP/1.1\r\nHost: x\r\n\r\n',
    'get /iam/v2/groups HTTP/1.1\r\nHost: x\r\n\r\n',
    `GET /iam/v2/groups/a b HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    `GET /iam/v2/groups/\x00 HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    `GET /iam/v2/groups/\xff\xfe\x80 HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    `GET /iam/v2/groups/../../../etc/passwd HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    `GET /iam/v2/groups/%2e%2e%2f%2e%2e%2fowner.token HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    'GET / HTTP/1.1\r\nHost x\r\n\r\n',
    'GET / HTTP/1.1\r\nHo st: x\r\n\r\n',
    'POST /iam/v2/groups HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    'POST /iam/v2/groups HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
    'POST /iam/v2/groups HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    'POST /iam/v2/groups HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    `POST /iam/v2/groups HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    `POST /iam/v2/groups HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    `GET /iam/v2/groups HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`,
    `GET /iam/v2/groups?${'a=1&'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    'GET /iam/v2/groups HTTP/9.9\r\nHost: x\r\n\r\n',
    'GET /iam/v2/groups HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x01\x02\r\n\r\n',
    `GET /iam/v2/groups HTTP/1.1\r\nHost: x\r\n${auth} folded\r\n\r\n`,
    'GET\r\n\r\n',
    `GET http://evil.example/iam/v2/groups HTTP/1.1\r\nHost: evil.example\r\n${auth}\r\n`,
    `OPTIONS * HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    `PROPFIND /iam/v2/groups HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    `GET /iam/v2/groups HTTP/1.1\r\n${auth}\r\n`,
    '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03' + 'A'.repeat(32) + '\r\n\r\n',
    'SSH-2.0-OpenSSH_9.0\r\n\r\n',
    `GET /iam/v2/groups HTTP/1.1\r\nHost: x\r\n${auth}Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n`,
  ];
  // Random garbage lines ending in a blank line: the parser sees a complete (invalid) message.
  for (let i = 0; i < 150; i++) {
    const junk = Array.from({ length: 1 + r.int(200) }, () => String.fromCharCode(r.chance(0.7) ? 32 + r.int(95) : r.int(256))).join('');
    complete.push(r.chance(0.5) ? `${junk}\r\n\r\n` : `GET /${junk.replace(/[\r\n]/g, '')} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`);
  }
  // Incomplete messages (blank lines before a request line are allowed and skipped), and
  // CONNECT (a proxy's method; node closes it when nobody listens for 'connect'): the
  // server may close without answering; it must not crash.
  const incomplete = [
    '\r\n\r\n\r\n\r\n',
    `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    'GET /iam/v2/groups HTTP/1.1\r\nHost: x\r\n',
    `POST /iam/v2/groups HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 100\r\n\r\n{"parent":`,
    `POST /iam/v2/groups HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n\r\n5\r\n{"par`,
  ];
  const out: RawResult[] = [];
  const check = async (payload: string, mustAnswer: boolean) => {
    const text = await rawExchange(port, Buffer.from(payload, 'latin1'), mustAnswer ? 3000 : 300);
    if (!text) {
      out.push({ payload, ...(mustAnswer ? { problem: 'no response' } : {}) });
      return;
    }
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
    if (!m) return void out.push({ payload, problem: `not an HTTP response: ${JSON.stringify(text.slice(0, 80))}` });
    const status = Number(m[1]);
    if (status >= 500) return void out.push({ payload, problem: `status ${status}: ${text.slice(0, 300)}` });
    if (status >= 300) {
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch { /* reported below */ }
      const problem = statusProblem(json);
      if (problem && !/^HEAD /.test(payload)) return void out.push({ payload, problem: `${status} ${problem}: ${JSON.stringify(text.slice(0, 200))}` });
    }
    out.push({ payload });
  };
  for (let i = 0; i < complete.length; i += 10) await Promise.all(complete.slice(i, i + 10).map((p) => check(p, true)));
  await Promise.all(incomplete.map((p) => check(p, false)));
  return out;
}
