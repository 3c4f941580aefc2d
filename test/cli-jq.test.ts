// `--jq EXPR` end to end: real jq (WebAssembly) over the real CLI's JSON, against a real serve.
import test from 'ava';
import { cli, lines, serveWithCli } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';
import { stub } from './helpers/stub.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;
let org: string;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
  org = srv.organizationUid;
  for (const name of ['jq-alpha', 'jq-beta']) {
    const r = await pctl(['groups', 'create', name, '--parent', org, '--description', `the ${name} team`]);
    if (r.code !== 0) throw new Error(r.stderr);
  }
});

test.after.always(() => stop?.());

test('a list is one array: .[].name prints one raw name per line', async (t) => {
  const r = await pctl(['groups', 'list', '--children-of', org, '--order-by', 'name', '--jq', '.[].name']);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(lines(r.stdout).filter((n) => n !== 'jq-gamma'), ['jq-alpha', 'jq-beta']);
  t.is(r.stderr, '');
});

test('objects print as compact JSON, one per line, in a pipe; indented on a terminal', async (t) => {
  const piped = await pctl(['groups', 'list', '--children-of', org, '--order-by', 'name', '--jq', '.[] | select(.name | test("^jq-(alpha|beta)$")) | {name, description}']);
  t.is(piped.code, 0, piped.stderr);
  t.deepEqual(lines(piped.stdout).map((l) => JSON.parse(l)), [
    { name: 'jq-alpha', description: 'the jq-alpha team' },
    { name: 'jq-beta', description: 'the jq-beta team' },
  ]);

  const tty = await pctl(['groups', 'list', '--name', 'jq-beta', '--jq', 'length'], { tty: true, env: { NO_COLOR: '1' } });
  t.is(tty.stdout, '1\n');
  const obj = await pctl(['groups', 'list', '--name', 'jq-alpha', '--jq', '.[0] | {name}'], { tty: true, env: { NO_COLOR: '1' } });
  t.is(obj.stdout, '{\n  "name": "jq-alpha"\n}\n');
});

test('--jq works on get, create and with -o json; no output when the filter yields nothing', async (t) => {
  const got = await pctl(['groups', 'get', org, '--jq', '.uid']);
  t.is(got.stdout, `${org}\n`);
  const created = await pctl(['groups', 'create', 'jq-gamma', '--parent', org, '-o', 'json', '--jq', '.name | ascii_upcase']);
  t.is(created.code, 0, created.stderr);
  t.is(created.stdout, 'JQ-GAMMA\n');
  const api = await pctl(['api', '/iam/v2/groups', '-q', 'name=jq-alpha', '--jq', '.groups[0].description']);
  t.is(api.code, 0, api.stderr);
  t.is(api.stdout, 'the jq-alpha team\n', 'pctl api takes --jq too');
  const none = await pctl(['groups', 'list', '--name', 'no-such-group', '--jq', '.[]']);
  t.is(none.code, 0);
  t.is(none.stdout, '');
});

test('a bad expression exits 2 with jq\'s message, before any request', async (t) => {
  // An API that must not be asked: the stub fails the test if a request reaches it.
  const dead = await stub(t, (_req, res) => res.end('[]'), { expectNoRequests: true });
  const url = dead.url;

  const syntax = await pctl(['groups', 'list', '--jq', '.[', '--api-url', url]);
  t.is(syntax.code, 2);
  t.regex(syntax.stderr, /^error: invalid --jq expression: syntax error, unexpected end of file/);
  t.is(syntax.stdout, '');

  const undefinedFn = await pctl(['groups', 'list', '--jq', '.[] | no_such_function', '--api-url', url]);
  t.is(undefinedFn.code, 2);
  t.regex(undefinedFn.stderr, /no_such_function\/0 is not defined/);
  t.is(dead.requests.length, 0, 'nothing was sent');
});

test('a filter that fails on the data exits 1 with jq\'s message; -o other than json is refused', async (t) => {
  const r = await pctl(['groups', 'list', '--jq', '.foo']);
  t.is(r.code, 1);
  t.regex(r.stderr, /^error: --jq: .*Cannot index array with "foo"|^error: --jq: .*Cannot index array with string "foo"/);

  const yaml = await pctl(['groups', 'list', '-o', 'yaml', '--jq', '.']);
  t.is(yaml.code, 2);
  t.regex(yaml.stderr, /--jq filters JSON output/);
});

test('jq leaves no trace on the process (exit code)', async (t) => {
  await pctl(['groups', 'list', '--jq', '.[']);
  t.is(process.exitCode, undefined);
});
