#!/usr/bin/env node
// A hanging webhook sink does not change the API's latency: p50/p99 of creates (each makes an
// event) and of GETs, with no subscription, then with a subscription whose sink never answers.
//   npm run build && node bench/events-hanging-sink.js [seconds per run, default 5]
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { pctl, startChild, tempDir } from './lib.js';

const duration = Number(process.argv[2] ?? 5);
const hanging = http.createServer(() => {}); // takes every request, answers none
await new Promise((resolve) => hanging.listen(0, '127.0.0.1', resolve));
const sink = `http://127.0.0.1:${hanging.address().port}/hook`;

const dataDir = tempDir();
const serve = await startChild([pctl, 'serve', '--port', '0', '--data', dataDir, '--rate-limit', 'off', '--event-timeout', '600s']);
const headers = { authorization: `Bearer ${readFileSync(join(dataDir, 'owner.token'), 'utf8').trim()}`, 'content-type': 'application/json' };
const api = async (method, path, body) => (await fetch(serve.url + path, { method, headers, body: body && JSON.stringify(body) })).json();
const org = (await api('GET', '/iam/v2/groups?page_size=1')).groups[0].uid;
const team = await api('POST', '/iam/v2/groups', { parent: org, group: { name: 'team' } });

let n = 0;
async function run(label) {
  const create = await autocannon({
    url: `${serve.url}/iam/v2/groups`, connections: 10, duration, method: 'POST', headers,
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ parent: team.uid, group: { name: `g${n++}` } }) }) }],
  });
  const get = await autocannon({ url: `${serve.url}/iam/v2/groups/${team.uid}`, connections: 10, duration, headers });
  for (const [what, r] of [['POST /iam/v2/groups (an event each)', create], ['GET /iam/v2/groups/{uid}', get]]) {
    console.log(`${label.padEnd(28)} ${what.padEnd(38)} p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  ${Math.round(r.requests.average)} req/s  non-2xx ${r.non2xx}`);
  }
}

await run('no subscription');
await api('POST', '/events/v2/subscriptions', { parent: team.uid, subscription: { sink } });
await run('a sink that never answers');
await serve.stop();
hanging.closeAllConnections();
hanging.close();
