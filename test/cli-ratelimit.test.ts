// The real CLI against a real serve with a tiny rate limit (1 request per second): pctl
// waits what Retry-After says and tries again, GET and POST alike (a 429 was not acted on).
// The CLI's sleep moves serve's clock, so a wait costs no time and nothing races a timer.
import test from 'ava';
import { closeAgent } from '../src/client/http.js';
import type { Clock } from '../src/cli/context.js';
import { cli, lines } from './helpers/cli.js';
import { startTestServer, tempDir } from './helpers/serve.js';
import { noDeadline } from './helpers/stub.js';

async function tinyLimit(t: import('ava').ExecutionContext) {
  let now = Date.parse('2026-06-01T12:00:00Z');
  const srv = await startTestServer({ rateLimit: { limit: 1, windowSeconds: 1, burst: 1 }, clock: () => now });
  t.teardown(async () => {
    await closeAgent();
    await srv.dispose();
  });
  const waits: number[] = [];
  const clock: Clock = {
    now: () => new Date(now),
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
    deadline: noDeadline,
  };
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  return { srv, waits, run: (argv: string[]) => pctl(argv, { clock }) };
}

test.serial('a 429 is waited out as Retry-After says, then retried: GET', async (t) => {
  const { srv, waits, run } = await tinyLimit(t);
  const first = await run(['groups', 'get', srv.organizationUid, '-o', 'json']);
  t.is(first.code, 0, first.stderr);
  t.deepEqual(waits, [], 'the first request took the one the bucket held');

  const second = await run(['groups', 'get', srv.organizationUid, '-o', 'json']);
  t.is(second.code, 0, second.stderr);
  t.deepEqual(waits, [1000], 'Retry-After: 1');
  t.deepEqual(lines(second.stderr), [`retrying GET /iam/v2/groups/${srv.organizationUid} in 1s (429 Too Many Requests, attempt 2 of 4)`]);
  t.is(JSON.parse(second.stdout).uid, srv.organizationUid);
});

test.serial('a 429 on a create is retried too, and the group is created once', async (t) => {
  const { srv, waits, run } = await tinyLimit(t);
  t.is((await run(['groups', 'get', srv.organizationUid])).code, 0);
  const created = await run(['groups', 'create', 'rate-limited', '--parent', srv.organizationUid, '-o', 'json']);
  t.is(created.code, 0, created.stderr);
  t.deepEqual(waits, [1000]);
  t.regex(created.stderr, /retrying POST \/iam\/v2\/groups in 1s \(429 Too Many Requests, attempt 2 of 4\)/);
  // Counted in the store: another request would be rate-limited.
  const named = (srv.store.prepare("SELECT count(*) AS n FROM resources WHERE kind = 'group' AND name = ?").get('rate-limited') as { n: number }).n;
  t.is(named, 1, 'one group, not two');
});

test.serial('with --retries 0 the 429 is the answer: the server\'s message, exit 1', async (t) => {
  const { srv, waits, run } = await tinyLimit(t);
  t.is((await run(['groups', 'get', srv.organizationUid])).code, 0);
  const refused = await run(['groups', 'get', srv.organizationUid, '--retries', '0']);
  t.is(refused.code, 1);
  t.deepEqual(waits, []);
  t.regex(refused.stderr, /Rate limit exceeded: each caller may make 1 request per second; retry in 1 s/);
});

test.serial("serve's control API is never limited for the owner: pctl serve requests with the bucket spent waits for nothing", async (t) => {
  const { srv, waits, run } = await tinyLimit(t);
  t.is((await run(['groups', 'get', srv.organizationUid])).code, 0);
  const journal = await run(['serve', 'requests', '--limit', '1', '-o', 'json']);
  t.is(journal.code, 0, journal.stderr);
  t.deepEqual(waits, [], 'no 429 to wait out');
  t.is(JSON.parse(journal.stdout)[0].path, `/iam/v2/groups/${srv.organizationUid}`);
});
