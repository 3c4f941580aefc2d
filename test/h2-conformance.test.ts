// HTTP/2 conformance: h2spec's published cases for RFC 9113 and RFC 7541 (and a few of its
// generic ones) against a real serve, driven by test/conformance/h2spec.py with the h2
// project's Python libraries (Debian's python3-h2 for /usr/bin/python3): a client no one here
// wrote for the honest cases, frames by hand for the broken ones. One run of the script for
// the file; each case is its own test. Without python3-h2 the cases are skipped (failed when
// PCTL_REQUIRE_SHELLS is set, as in CI, which installs it: .ci/run).
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { startTestServer, type TestServer } from './helpers/serve.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./conformance/h2spec.py', import.meta.url));
const h2Missing = spawnSync(PYTHON, ['-I', '-c', 'import h2, hpack']).status === 0 ? undefined : `${PYTHON} with its h2 module (Debian's python3-h2)`;

interface Case { id: string; title: string }
interface Verdict { id: string; ok: boolean; detail: string }

const cases: Case[] = h2Missing
  ? [{ id: 'all', title: 'h2spec cases' }]
  : spawnSync(PYTHON, ['-I', SCRIPT, '--list'], { encoding: 'utf8' }).stdout.trim().split('\n').map((line) => JSON.parse(line) as Case);

let srv: TestServer | undefined;
let verdicts: Promise<Map<string, Verdict>> | undefined;

test.before(async () => {
  if (h2Missing) return;
  srv = await startTestServer();
  const server = srv;
  verdicts = new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-I', SCRIPT, String(server.port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const got = new Map<string, Verdict>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const v = JSON.parse(line) as Verdict;
      got.set(v.id, v);
    });
    child.on('error', reject);
    child.on('close', () => resolve(got));
  });
});
test.after.always(async () => {
  await srv?.dispose();
});

for (const c of cases) {
  const title = `${c.id}: ${c.title}`;
  if (h2Missing) {
    if (process.env.PCTL_REQUIRE_SHELLS) test(title, (t) => t.fail(`not installed: ${h2Missing} (.ci/run installs it)`));
    else test.skip(`${title} (not installed: ${h2Missing})`, () => {});
    continue;
  }
  test(title, async (t) => {
    const v = (await verdicts!).get(c.id);
    t.truthy(v, 'the script gave a verdict');
    t.true(v?.ok, v?.detail);
  });
}

test('after every case, serve still answers an honest HTTP/2 client', async (t) => {
  if (h2Missing) return void t.log(`skipped: ${h2Missing}`);
  await verdicts;
  const http2 = await import('node:http2');
  const session = http2.connect(srv!.url);
  t.teardown(() => void session.destroy());
  const status = await new Promise<number>((resolve, reject) => {
    const req = session.request({ ':path': `/iam/v2/groups/${encodeURIComponent(srv!.organizationUid)}`, authorization: `Bearer ${srv!.ownerToken}` });
    req.on('response', (h) => resolve(Number(h[':status'])));
    req.on('error', reject);
    req.resume();
  });
  t.is(status, 200);
});
