// GET by uid with the journal on and off, alternating 5 rounds of 3 s.
import { startServe, reqPerSec, tempDir } from '/work/main/bench/lib.js';
import { startChild } from '/work/main/bench/lib.js';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
const pctl = '/work/main/bin/pctl.js';
async function start(journal) {
  const dir = tempDir();
  const s = await startChild([pctl, 'serve', '--port', '0', '--data', dir, '--rate-limit', 'off', '--journal', String(journal)], { PCTL_CONFIG_DIR: tempDir() });
  const token = readFileSync(`${dir}/owner.token`, 'utf8').trim();
  const headers = { authorization: `Bearer ${token}` };
  const org = (await request(`${s.url}/iam/v2/groups?page_size=1`, { headers }).then((r) => r.body.json())).groups[0].uid;
  for (let i = 0; i < 300; i++) await request(`${s.url}/iam/v2/groups`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ parent: org, group: { name: `g-${i}` } }) }).then((r) => r.body.text());
  return { ...s, url: `${s.url}/iam/v2/groups?order_by=name&page_size=50`, headers };
}
const on = await start(1000), off = await start(0);
for (const s of [on, off]) await reqPerSec(s.url, { headers: s.headers, duration: 2 });
const r = { on: [], off: [] };
for (let i = 0; i < 5; i++) { r.on.push(Math.round(await reqPerSec(on.url, { headers: on.headers, duration: 3 }))); r.off.push(Math.round(await reqPerSec(off.url, { headers: off.headers, duration: 3 }))); }
console.log(JSON.stringify(r));
await on.stop(); await off.stop();
