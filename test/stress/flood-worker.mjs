// The flood of test/stress/fairness.test.ts (plain JavaScript: a worker thread does not get
// the test's TypeScript loader), in a thread of its own so that the owner's
// latencies are measured by an event loop with nothing else to do: CONNECTIONS keep-alive
// connections list groups as one viewer (a page of 200, the order and skip drawn from a
// seeded generator, so pages are rarely the same twice), bodies read and dropped unparsed.
// Posts { listed, statuses } every 200 ms and once more when told to stop. 'pause' holds
// every connection once its request is answered (then posts { paused: true }); 'resume'
// lets them go on.
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

const { url, token, connections, groups, seed } = workerData;
const ORDERS = ['', 'name', 'name%20desc', 'createTime%20desc', 'updateTime', 'uid%20desc'];
const pool = new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
const headers = { authorization: `Bearer ${token}` };
const statuses = {};
let listed = 0;
let stop = false;
let paused;
let idle = 0;
let resume = () => {};
let a = seed >>> 0;
const next = () => {
  a = (a + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

parentPort.on('message', (m) => {
  if (m === 'stop') {
    stop = true;
    resume();
  } else if (m === 'pause') {
    paused ??= new Promise((resolve) => { resume = resolve; });
  } else if (m === 'resume') {
    paused = undefined;
    resume();
  }
});
const report = setInterval(() => parentPort.postMessage({ listed, statuses }), 200);

await Promise.all(Array.from({ length: connections }, async () => {
  while (!stop) {
    if (paused) {
      if (++idle === connections) parentPort.postMessage({ listed, statuses, paused: true });
      await paused;
      idle--;
      continue;
    }
    const order = ORDERS[Math.floor(next() * ORDERS.length)];
    const skip = Math.floor(next() * groups);
    const path = `/iam/v2/groups?page_size=200&skip=${skip}${order ? `&order_by=${order}` : ''}`;
    try {
      const res = await pool.request({ method: 'GET', path, headers });
      await res.body.dump({ limit: Infinity });
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    } catch (err) {
      statuses[err.message] = (statuses[err.message] ?? 0) + 1;
    }
    listed++;
  }
}));
clearInterval(report);
await pool.destroy();
parentPort.postMessage({ listed, statuses, done: true });
