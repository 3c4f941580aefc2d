// Errors and exit codes, as CLI-CONTRACT.md states them: one `error:` line on stderr (plus
// violations), nothing on stdout, 0/1/2/3/4, no stack unless --debug, fast on a dead server
// (no retry wait, no timeout: shown with an injected clock, not a stopwatch).
import test from 'ava';
import { ApiError } from '../src/api/errors.js';
import { exitCodeFor, NetworkError, UsageError } from '../src/cli/errors.js';
import { cli, lines, serveWithCli } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';
import { tempDir } from './helpers/temp.js';
import { freePort, manualDeadline, stub } from './helpers/stub.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
});

test.after.always(() => stop?.());

test('exit 0: success', async (t) => {
  const r = await pctl(['groups', 'list']);
  t.is(r.code, 0);
  t.is(r.stderr, '');
});

test('exit 2: usage errors, before any request', async (t) => {
  const cases: [string[], RegExp][] = [
    [['groups', 'list', '--bogus'], /^error: unknown option '--bogus'/],
    [['groups', 'frobnicate'], /^error: unknown command 'frobnicate'/],
    [['groups', 'list', '-o', 'xml'], /^error: option '-o, --output <format>' argument 'xml' is invalid/],
    [['groups', 'list', '--limit', '0'], /^error: option '--limit <n>' argument '0' is invalid/],
    [['groups', 'list', '--page-size', '500'], /must be an integer from 1 to 200/],
    [['groups', 'list', '--timeout', 'soon'], /must be a duration/],
    [['groups', 'get'], /^error: missing required argument 'uid'/],
    [['groups', 'create', 'x'], /^error: required option '--parent <group>' not specified/],
    [['identities', 'list', '--group', 'a', '--children-of', 'b'], /cannot be used with option/],
  ];
  for (const [argv, message] of cases) {
    const r = await pctl([...argv, '--debug']);
    t.is(r.code, 2, argv.join(' '));
    t.is(r.stdout, '', argv.join(' '));
    t.regex(r.stderr, message, argv.join(' '));
    t.notRegex(r.stderr, /^> /m, 'no request was sent');
  }
});

test('a command group without a verb prints its help on stderr (exit 2); --help is exit 0 on stdout', async (t) => {
  const bare = await pctl(['groups']);
  t.is(bare.code, 2);
  t.is(bare.stdout, '');
  t.regex(bare.stderr, /Usage: pctl groups/);

  const help = await pctl(['groups', 'list', '--help']);
  t.is(help.code, 0);
  t.regex(help.stdout, /--descendants-of <group>/);
  t.regex(help.stdout, /--page-size <n>/);
  t.is(help.stderr, '');

  const version = await pctl(['--version']);
  t.is(version.code, 0);
  t.regex(version.stdout, /^\d+\.\d+\.\d+\n$/);
});

test('exit 3: not found', async (t) => {
  const r = await pctl(['groups', 'get', `${srv.organizationUid}/0000000000000000`]);
  t.is(r.code, 3);
  t.is(r.stdout, '');
  t.is(lines(r.stderr).length, 1);
  t.regex(r.stderr, /^error: Group not found: /);
});

test('exit 3: one wording for not found, whoever finds it missing: "<Kind> not found: …"', async (t) => {
  for (const argv of [
    ['groups', 'get', `${srv.organizationUid}/0000000000000000`], // the server
    ['groups', 'get', 'no-such-group'], // the CLI's name lookup
    ['repos', 'list', '--descendants-of', 'no-such-group'],
    ['roles', 'get', 'no-such-role'],
    ['config', 'use', 'no-such-profile'],
    ['groups', 'list', '--profile', 'no-such-profile'],
  ]) {
    const r = await pctl(argv);
    t.is(r.code, 3, argv.join(' '));
    t.regex(r.stderr, /^error: (--[a-z-]+: )?[A-Z][a-z]+( [a-z]+)? not found: \S/, argv.join(' '));
  }
});

test('exit 4: a bad token', async (t) => {
  const r = await pctl(['groups', 'list'], { env: { PCTL_TOKEN: 'not-a-token' } });
  t.is(r.code, 4);
  t.is(r.stdout, '');
  t.regex(r.stderr, /^error: /);
  const none = await pctl(['groups', 'list'], { env: { PCTL_TOKEN: undefined } });
  t.is(none.code, 4, 'no token at all');
});

test('exit 4: permission denied for a viewer that tries to write', async (t) => {
  const org = srv.organizationUid;
  const identity = (
    await pctl(['identities', 'create', 'read-only', '--parent', org, '--issuer', srv.url, '--subject', 'read-only-bot', '-o', 'id'])
  ).stdout.trim();
  t.is((await pctl(['role-bindings', 'create', '--parent', org, '--identity', identity, '--role', 'viewer'])).code, 0);
  const minted = await pctl(['serve', 'token', '--identity', identity, '--data', srv.dataDir]);
  t.is(minted.code, 0, minted.stderr);
  const asViewer = { env: { PCTL_TOKEN: minted.stdout.trim() } };

  t.is((await pctl(['groups', 'list', '-o', 'id'], asViewer)).code, 0, 'a viewer may read');
  const denied = await pctl(['groups', 'create', 'nope', '--parent', org], asViewer);
  t.is(denied.code, 4);
  t.is(denied.stdout, '');
  t.regex(denied.stderr, /^error: /);
});

test('exit 1: a failed request (failed precondition) with its violations', async (t) => {
  const org = srv.organizationUid;
  const r = await pctl(['groups', 'delete', org, '--yes']);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  t.regex(lines(r.stderr)[0]!, /^error: /);
  t.regex(lines(r.stderr)[1]!, /^ {2}RESOURCE_NOT_EMPTY: /);
});

test('exit 1: an unreachable server, with one clear line, fast', async (t) => {
  // A port that was just free: connection refused.
  const port = await freePort();
  // Fast means nothing is waited for: no retry sleep, and the attempt's deadline never passes.
  const waits: number[] = [];
  const d = manualDeadline();
  const clock = { now: () => new Date(), sleep: async (ms: number) => void waits.push(ms), deadline: d.deadline };
  // --retries 0: a refused connection is otherwise retried (test/client-retry.test.ts).
  const r = await pctl(['groups', 'list', '--api-url', `http://127.0.0.1:${port}`, '--retries', '0'], { clock });
  t.is(r.code, 1);
  t.is(r.stdout, '');
  t.is(r.stderr, `error: cannot connect to http://127.0.0.1:${port}: connection refused (is the server running?)\n`);
  t.deepEqual(waits, [], 'no wait before giving up');
  t.deepEqual(d.asked, [30_000], 'one attempt, failed before its (default) deadline was fired');
});

test('exit 1: a server that does not answer, within --timeout', async (t) => {
  const silent = await stub(t, () => {
    /* never answers */
  });
  // The deadline --timeout asks for passes once the server has the request (an event).
  const d = manualDeadline();
  const running = pctl(['groups', 'list', '--api-url', silent.url, '--timeout', '500ms'], { clock: { now: () => new Date(), deadline: d.deadline } });
  await silent.arrived(1);
  d.fire();
  const r = await running;
  t.deepEqual(d.asked, [500]);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  t.is(r.stderr, `error: request to ${silent.url} timed out after 500ms\n`);
});

test('no stack trace unless --debug', async (t) => {
  const quiet = await pctl(['groups', 'list', '--api-url', 'http://127.0.0.1:1', '--retries', '0']);
  t.is(lines(quiet.stderr).length, 1);
  t.notRegex(quiet.stderr, /\n\s+at /);
  const loud = await pctl(['groups', 'list', '--api-url', 'http://127.0.0.1:1', '--debug', '--retries', '0']);
  t.regex(loud.stderr, /\n\s+at /);
});

test('no API URL anywhere is a usage error that says what to do', async (t) => {
  const r = await pctl(['groups', 'list'], { env: { PCTL_API_URL: undefined, PCTL_CONFIG_DIR: tempDir('pctl-empty-cfg-') } });
  t.is(r.code, 2);
  t.regex(r.stderr, /^error: no API URL configured: start a local server with `pctl serve`/);
  const bad = await pctl(['groups', 'list', '--api-url', 'ftp://x']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /^error: Invalid argument: api-url: must be an http or https URL/);
});

test('exit code mapping: API codes 5 → 3, 16 and 7 → 4, others → 1', (t) => {
  t.is(exitCodeFor(new ApiError(5, 'x')), 3);
  t.is(exitCodeFor(new ApiError(16, 'x')), 4);
  t.is(exitCodeFor(new ApiError(7, 'x')), 4);
  for (const code of [2, 3, 6, 8, 9, 13, 14]) t.is(exitCodeFor(new ApiError(code, 'x')), 1, String(code));
  t.is(exitCodeFor(new UsageError('x')), 2);
  t.is(exitCodeFor(new NetworkError('x')), 1);
  t.is(exitCodeFor(new Error('x')), 1);
});
