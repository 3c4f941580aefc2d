// `pctl serve faults` and `pctl serve requests` against a real serve, and pctl's own retries
// against each kind of injected fault: what is retried, what is not, and what the user sees.
import test from 'ava';
import { cli, lines, serveWithCli, type RunResult } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
});
test.after.always(() => stop());
test.afterEach.always(async () => {
  await pctl(['serve', 'faults', 'clear']);
});

const ok = (t: import('ava').ExecutionContext, r: RunResult, what: string) => t.is(r.code, 0, `${what}: ${r.stderr}`);

test.serial('faults add, list and clear; a bad rule is a usage error naming what is wrong, sent nowhere', async (t) => {
  const added = await pctl(['serve', 'faults', 'add', 'GET /iam/v2/roles* error=14 p=0.5 seed=3', '-o', 'json']);
  ok(t, added, 'add');
  const rule = JSON.parse(added.stdout);
  t.like(rule, { method: 'GET', path: '/iam/v2/roles*', effect: 'error', code: 14, probability: 0.5, seed: 3 });
  const listed = await pctl(['serve', 'faults', 'list']);
  ok(t, listed, 'list');
  t.deepEqual(lines(listed.stdout), [`${rule.id}\tGET /iam/v2/roles* error=14 (UNAVAILABLE) p=0.5 seed=3\t0`]);

  const bad = await pctl(['serve', 'faults', 'add', '/x error=99']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /rule: error: must be an AIP-193 code from 1 to 16/);

  ok(t, await pctl(['serve', 'faults', 'clear', rule.id]), 'clear one');
  t.is((await pctl(['serve', 'faults', 'list'])).stdout, '');
  const missing = await pctl(['serve', 'faults', 'clear', 'f999']);
  t.is(missing.code, 3);
});

test.serial('UNAVAILABLE on a read: pctl retries it and succeeds, saying so on stderr', async (t) => {
  ok(t, await pctl(['serve', 'faults', 'add', 'GET /iam/v2/groups error=14 times=2']), 'add');
  const r = await pctl(['groups', 'list', '-o', 'id']);
  ok(t, r, 'groups list');
  t.true(lines(r.stdout).includes(srv.organizationUid));
  t.is(lines(r.stderr).filter((l) => /^retrying GET \/iam\/v2\/groups in .* \(503 Service Unavailable, attempt \d of 4\)$/.test(l)).length, 2, r.stderr);
});

test.serial('RESOURCE_EXHAUSTED on a create: a 429 is retried even for a POST (refused before acting), and the group is made once', async (t) => {
  ok(t, await pctl(['serve', 'faults', 'add', 'POST /iam/v2/groups error=8 times=1']), 'add');
  const r = await pctl(['groups', 'create', 'after-429', '--parent', srv.organizationUid, '-o', 'json']);
  ok(t, r, 'create');
  t.regex(r.stderr, /retrying POST \/iam\/v2\/groups in .* \(429 Too Many Requests/);
  const named = (await srv.ok('GET', '/iam/v2/groups?name=after-429')).groups;
  t.is(named.length, 1);
});

test.serial('UNAVAILABLE on a create is not retried (it may have been acted on): exit 1, the error, nothing made', async (t) => {
  ok(t, await pctl(['serve', 'faults', 'add', 'POST /iam/v2/groups error=14']), 'add');
  const r = await pctl(['groups', 'create', 'never-made', '--parent', srv.organizationUid]);
  t.is(r.code, 1);
  t.notRegex(r.stderr, /retrying/);
  t.regex(r.stderr, /^error: Injected fault f\d+: UNAVAILABLE/m);
  t.is((await srv.ok('GET', '/iam/v2/groups?name=never-made')).groups.length, 0);
});

test.serial('a reset: a read is retried ("connection reset") and succeeds; a create is not, and says the connection closed', async (t) => {
  ok(t, await pctl(['serve', 'faults', 'add', 'GET /iam/v2/roles reset times=1']), 'add');
  const read = await pctl(['roles', 'list', '-o', 'id']);
  ok(t, read, 'roles list');
  t.regex(read.stderr, /retrying GET \/iam\/v2\/roles in .* \(connection reset, attempt 2 of 4\)/);

  ok(t, await pctl(['serve', 'faults', 'add', 'POST /iam/v2/groups reset']), 'add');
  const write = await pctl(['groups', 'create', 'cut-off', '--parent', srv.organizationUid]);
  t.is(write.code, 1);
  t.regex(write.stderr, /^error: connection to http:\/\/127\.0\.0\.1:\d+ was closed unexpectedly/m);
});

test.serial('a stall: the request meets its deadline (fired here once the journal shows the stalled call), exit 1, "timed out"', async (t) => {
  ok(t, await pctl(['serve', 'faults', 'add', 'GET /iam/v2/identities stall']), 'add');
  const mark = (await srv.ok('GET', '/_pctl/requests?limit=1')).last;
  const deadline = new AbortController();
  const clock = {
    now: () => new Date(),
    sleep: async () => {},
    deadline: () => deadline.signal,
  };
  const running = pctl(['identities', 'list', '--retries', '0'], { clock });
  await srv.ok('GET', `/_pctl/requests?after=${mark}&wait=30`); // the stalled call has arrived
  deadline.abort(new DOMException('deadline', 'TimeoutError'));
  const r = await running;
  t.is(r.code, 1);
  t.regex(r.stderr, /^error: request to http:\/\/127\.0\.0\.1:\d+ timed out after 30s/m);
});

test.serial('latency: the request waits, then runs as usual', async (t) => {
  ok(t, await pctl(['serve', 'faults', 'add', 'GET /iam/v2/roles latency=1ms']), 'add');
  const r = await pctl(['roles', 'list', '-o', 'id']);
  ok(t, r, 'roles list');
  const journal = await srv.ok('GET', '/_pctl/requests?limit=1');
  t.is(journal.requests[0].fault.effect, 'latency');
  t.is(journal.requests[0].status, 200);
});

test.serial('serve requests: the journal as a table, as JSON with masked bodies, and --limit', async (t) => {
  ok(t, await pctl(['groups', 'create', 'journal-me', '--parent', srv.organizationUid]), 'create');
  const table = await pctl(['serve', 'requests', '--limit', '1']);
  ok(t, table, 'requests');
  const [row] = lines(table.stdout);
  t.regex(row!, new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[^\\t]+\\tPOST\\t/iam/v2/groups\\t200\\t[\\d.]+\\t${srv.ownerIdentityUid}\\t$`));
  const json = JSON.parse((await pctl(['serve', 'requests', '--limit', '1', '-o', 'json'])).stdout);
  t.regex(json[0].requestBody, /"name":"journal-me"/);
  const bad = await pctl(['serve', 'requests', '--limit', '0']);
  t.is(bad.code, 2);
});

test.serial('serve requests --follow prints requests as they arrive', async (t) => {
  const { captureIO } = await import('./helpers/cli.js');
  const { main } = await import('../src/cli/main.js');
  const io = captureIO();
  const env = { PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: '/nonexistent-pctl-test' };
  const following = main(['serve', 'requests', '--follow', '--limit', '1', '-o', 'ndjson'], { io: io.io, env, clock: { now: () => new Date() } });
  await io.untilOut(/\n/); // the latest entry, printed at once
  await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'followed' } });
  const m = await io.untilOut(/^\{.*"method":"POST","path":"\/iam\/v2\/groups".*\}$/m);
  t.regex(m[0], /"status":200/);
  // The follow ends when the server stops (after this file's tests): its long poll fails.
  void following.catch(() => undefined);
});
