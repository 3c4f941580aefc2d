// scratch: start serve (optionally under --cpu-prof / strace), make N sequential creates
import { readFileSync } from 'node:fs';
import { request, Agent } from 'undici';
import { startChild, tempDir, pctl, sequentialRate } from '../bench/lib.js';
const mode = process.argv[2] ?? 'plain';
const n = Number(process.argv[3] ?? 3000);
const dataDir = process.env.SHM ? (await import('node:fs')).mkdtempSync('/dev/shm/wr-') : tempDir();
const pre = mode === 'prof' ? ['--cpu-prof', '--cpu-prof-dir', '/tmp/wr/prof'] : [];
const serve = await startChild([...pre, pctl, 'serve', '--port', '0', '--data', dataDir, '--rate-limit', 'off'], { PCTL_CONFIG_DIR: tempDir('cfg-') });
console.log('pid', serve.child.pid, dataDir);
const token = readFileSync(`${dataDir}/owner.token`, 'utf8').trim();
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const one = new Agent({ connections: 1, pipelining: 1 });
const org = (await request(`${serve.url}/iam/v2/groups?page_size=1`, { headers, dispatcher: one }).then((r) => r.body.json())).groups[0].uid;
let made = 0;
const create = async () => {
  const r = await request(`${serve.url}/iam/v2/groups`, { method: 'POST', headers, dispatcher: one, body: JSON.stringify({ parent: org, group: { name: `g-${made++}` } }) });
  await r.body.text();
  if (r.statusCode !== 200) throw new Error(`create ${r.statusCode}`);
};
const get = async () => { const r = await request(`${serve.url}/iam/v2/groups/${org}`, { headers, dispatcher: one }); await r.body.text(); };
await sequentialRate(create, 300);
if (process.env.PAUSE) { console.log('ready'); await new Promise((r) => setTimeout(r, Number(process.env.PAUSE))); }
const st = (await import('node:fs')).statSync;
const cpu = () => { const f = readFileSync(`/proc/${serve.child.pid}/stat`, 'utf8').split(') ')[1].split(' '); return [Number(f[11]) * 10, Number(f[12]) * 10]; };
const c0 = cpu();
const w0 = st(`${dataDir}/pctl.db-wal`).size;
const c = process.env.NOCREATE ? 1 : await sequentialRate(create, n);
const w1 = st(`${dataDir}/pctl.db-wal`).size;
const c1 = cpu();
const g = process.env.NOGET ? 1 : await sequentialRate(get, n);
const c2 = cpu();
console.log(`creates/s ${c.toFixed(0)} (${(1000 / c).toFixed(3)} ms)  gets/s ${g.toFixed(0)} (${(1000 / g).toFixed(3)} ms)  wal ${w0}->${w1}  serve user/sys per create ${((c1[0] - c0[0]) / n).toFixed(3)}/${((c1[1] - c0[1]) / n).toFixed(3)} ms  per get ${((c2[0] - c1[0]) / n).toFixed(3)}/${((c2[1] - c1[1]) / n).toFixed(3)} ms`);
await one.close();
await serve.stop();
