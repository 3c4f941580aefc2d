// The protocol rows of `npm run bench -- --protocols` in two (or more) checkouts, each built
// (npm run build), measured in the same run: one serve per checkout on its own 1,000-group data
// (each checkout's own bench/populate.js), h2load -c 10 against each in interleaved rounds (per
// case, the checkouts in alternating order, after one warm-up round), medians of req/s and of
// serve's CPU per request (utime + stime from /proc, Linux). On a shared machine the rates move
// with the neighbours' load; the paired ratios and the CPU a request costs much less.
//   node bench/ab-protocols.js [--rounds N] [--seconds S] CHECKOUT_A CHECKOUT_B...
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { grpcFrame, h2load, median, numericOption, rpcStatus, startChild, tempDir } from './lib.js';

const argv = process.argv.slice(2);
const option = (name, fallback) => numericOption(argv, name, fallback);
const rounds = option('--rounds', 5);
const seconds = option('--seconds', 3);
const checkouts = argv.map((d) => resolve(d));
if (checkouts.length < 1) throw new Error('usage: node bench/ab-protocols.js [--rounds N] [--seconds S] CHECKOUT...');

const work = tempDir('pctl-ab-protocols-');
const serves = [];
try {
  for (const [k, dir] of checkouts.entries()) {
    const data = join(work, `data-${k}`);
    const { populate } = await import(join(dir, 'bench', 'populate.js'));
    const { org } = await populate(data, 1_000);
    const serve = await startChild([join(dir, 'bin', 'pctl.js'), 'serve', '--port', '0', '--data', data, '--rate-limit', 'off'], { PCTL_CONFIG_DIR: join(work, `config-${k}`) });
    const token = readFileSync(join(data, 'owner.token'), 'utf8').trim();
    serves.push({ dir, org, token, ...serve });
  }
  // The gRPC service each checkout answers: the vendor's published GroupsService; a checkout
  // from before serve spoke the published contract (0b4949e…) only had its own IamService,
  // whose ListGroupsRequest numbers its fields differently.
  const CONTRACTS = [
    { service: 'chainguard.platform.iam.v2.GroupsService', list: (org) => grpcFrame([[1, grpcFrame([[2, org]]).subarray(5)], [3, 50], [5, 'name']]) },
    { service: 'platform.iam.v2.IamService', list: (org) => grpcFrame([[1, 50], [3, 'name'], [5, grpcFrame([[1, org]]).subarray(5)]]) },
  ];
  const contractOf = async (s) => {
    for (const c of CONTRACTS) {
      const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/grpc' };
      if ((await rpcStatus(s.url, `/${c.service}/GetGroup`, grpcFrame([[1, s.org]]), headers)) === '0' && (await rpcStatus(s.url, `/${c.service}/ListGroups`, c.list(s.org), headers)) === '0') return c;
    }
    throw new Error(`${s.dir} answers GetGroup and ListGroups on none of ${CONTRACTS.map((c) => c.service).join(', ')}`);
  };
  const cases = (s, k, contract) => {
    const auth = `authorization: Bearer ${s.token}`;
    const file = (name, bytes) => {
      const path = join(work, `${k}-${name}`);
      writeFileSync(path, bytes);
      return path;
    };
    const get = grpcFrame([[1, s.org]]);
    const list = contract.list(s.org);
    const getBody = file('get.grpc', get);
    const listBody = file('list.grpc', list);
    const getJson = file('get.json', JSON.stringify({ uid: s.org }));
    const rpc = (m) => `${s.url}/${contract.service}/${m}`;
    const grpc = ['-H', 'content-type: application/grpc', '-H', 'te: trailers'];
    return {
      rest1: ['--h1', '-H', auth, `${s.url}/iam/v2/groups/${s.org}`],
      rest2: ['-m', '1', '-H', auth, `${s.url}/iam/v2/groups/${s.org}`],
      grpc: ['-m', '1', '-d', getBody, '-H', auth, ...grpc, rpc('GetGroup')],
      grpcWeb2: ['-m', '1', '-d', getBody, '-H', auth, '-H', 'content-type: application/grpc-web+proto', '-H', 'x-grpc-web: 1', rpc('GetGroup')],
      connect: ['--h1', '-d', getJson, '-H', auth, '-H', 'content-type: application/json', rpc('GetGroup')],
      listRest1: ['--h1', '-H', auth, `${s.url}/iam/v2/groups?uidp.descendants_of=${s.org}&order_by=name&page_size=50`],
      listGrpc: ['-m', '1', '-d', listBody, '-H', auth, ...grpc, rpc('ListGroups')],
      checks: [
        () => rpcStatus(s.url, `/${contract.service}/GetGroup`, get, { authorization: `Bearer ${s.token}`, 'content-type': 'application/grpc' }),
        () => rpcStatus(s.url, `/${contract.service}/ListGroups`, list, { authorization: `Bearer ${s.token}`, 'content-type': 'application/grpc' }),
        () => rpcStatus(s.url, `/${contract.service}/GetGroup`, JSON.stringify({ uid: s.org }), { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, { h1: true }),
      ],
    };
  };
  const runs = [];
  for (const [k, s] of serves.entries()) runs.push(cases(s, k, await contractOf(s)));
  for (const r of runs) for (const check of r.checks) if ((await check()) !== '0') throw new Error(`a check call failed: ${await check()}`);
  const names = Object.keys(runs[0]).filter((n) => n !== 'checks');
  const rates = serves.map(() => Object.fromEntries(names.map((n) => [n, []])));
  const cpu = serves.map(() => Object.fromEntries(names.map((n) => [n, []])));
  const loads = [];
  for (let round = 0; round <= rounds; round++) {
    loads.push(loadavg()[0]);
    for (const n of names) {
      const order = round % 2 ? [...serves.keys()].reverse() : [...serves.keys()];
      for (const k of order) {
        const { rate, cpuUs } = h2load(['-c', '10', '-D', String(round === 0 ? 1 : seconds), ...runs[k][n]], serves[k].child.pid);
        if (round === 0) continue; // warm-up (JIT)
        rates[k][n].push(rate);
        if (cpuUs !== undefined) cpu[k][n].push(cpuUs);
      }
    }
  }
  const ratios = [['grpc', 'rest1', 'gRPC GetGroup vs REST/HTTP1.1'], ['rest2', 'rest1', 'REST h2c vs HTTP/1.1'], ['connect', 'rest1', 'Connect JSON vs REST/HTTP1.1'], ['grpcWeb2', 'grpc', 'gRPC-Web vs gRPC (h2c)'], ['listGrpc', 'listRest1', 'ListGroups gRPC vs REST/HTTP1.1']];
  console.log(`${rounds} rounds of ${seconds} s after a warm-up, h2load -c 10; load average (1 min) during rounds: ${loads.map((l) => l.toFixed(1)).join(' ')}`);
  for (const [k, s] of serves.entries()) {
    console.log(`\n${s.dir}`);
    for (const n of names) console.log(`  ${n.padEnd(10)} ${median(rates[k][n]).toFixed(0).padStart(7)} req/s  ${median(cpu[k][n]).toFixed(1).padStart(6)} us CPU/req   (${rates[k][n].map((r) => r.toFixed(0)).join(' ')})`);
    for (const [a, b, what] of ratios) {
      // The median of each round's ratio (a pair measured seconds apart), and the ratio of CPU per request (b's over a's).
      const paired = median(rates[k][a].map((r, i) => r / rates[k][b][i]));
      console.log(`  ${what.padEnd(34)} ${paired.toFixed(2)}x by req/s   ${(median(cpu[k][b]) / median(cpu[k][a])).toFixed(2)}x by CPU/req`);
    }
    if (k === 0) continue;
    // Each round measured both checkouts seconds apart: the median of the paired differences.
    const diffs = names.map((n) => `${n} ${median(cpu[k][n].map((c, i) => c - cpu[0][n][i])).toFixed(1)}`);
    console.log(`  CPU/req minus the first checkout's, median of paired differences (us): ${diffs.join(', ')}`);
  }
} finally {
  for (const s of serves) await s.stop();
  rmSync(work, { recursive: true, force: true });
}
