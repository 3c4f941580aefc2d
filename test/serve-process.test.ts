// The commands that open the SQLite store, as real processes on the Node running this suite
// (CI runs it on 20, 22, 24 and 26): each exits 0 with no native abort. better-sqlite3 12 on
// Node 24.19+ aborted at random when a Database or Statement was garbage-collected
// (`Assertion failed: (env) != nullptr`, exit 134); export ran 3 times in 5 before the fix.
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from './helpers/http.js';
import { tempDir } from './helpers/temp.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/pctl.js');

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Signs of a native crash on stderr (node's CHECK failures, fatal errors, native stacks). */
const NATIVE = /Assertion failed|Native stack trace|FATAL ERROR|Segmentation fault|core dumped/;

function started(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<Exit>((done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })));
  /** Resolves once stdout (or stderr) so far matches (an event, not a timer); rejects if the process ends first. */
  const waitFor = (re: RegExp, stream: 'stdout' | 'stderr' = 'stdout') =>
    new Promise<RegExpExecArray>((found, failed) => {
      const check = () => {
        const m = re.exec(stream === 'stdout' ? stdout : stderr);
        if (m) {
          child[stream].off('data', check);
          found(m);
        }
      };
      child[stream].on('data', check);
      void exited.then((e) => failed(new Error(`exited ${e.code ?? e.signal} before printing ${re}: ${e.stderr}`)));
      check();
    });
  return { child, exited, waitFor };
}

const run = (args: string[], env: Record<string, string>) => started(args, env).exited;

/** A data dir and a config dir of the test's own, removed after it. */
function scratch(t: import('ava').ExecutionContext): { data: string; env: { PCTL_CONFIG_DIR: string } } {
  const data = tempDir('pctl-proc-data-');
  const env = { PCTL_CONFIG_DIR: tempDir('pctl-proc-cfg-') };
  t.teardown(() => {
    rmSync(data, { recursive: true, force: true });
    rmSync(env.PCTL_CONFIG_DIR, { recursive: true, force: true });
  });
  return { data, env };
}

function assertClean(t: import('ava').ExecutionContext, what: string, e: Exit): void {
  t.is(e.signal, null, `${what}: killed by ${e.signal}\n${e.stderr}`);
  t.is(e.code, 0, `${what}: exit ${e.code}\n${e.stderr}`);
  t.notRegex(e.stderr, NATIVE, `${what}: native crash on stderr`);
}

test('serve start/stop, export, token and reset each exit 0 with no native abort', async (t) => {
  if (!existsSync(join(root, 'dist/bundle/main.js'))) return t.fail('dist/ is not built (npm ci builds it; or run npm run build)');
  const { data, env } = scratch(t);

  // A full serve: start on a free port with the demo data, answer requests, stop on SIGTERM.
  const serve = started(['serve', '--port', '0', '--data', data, '--demo'], env);
  t.teardown(() => void serve.child.kill('SIGKILL'));
  const url = (await serve.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const auth = { authorization: `Bearer ${readFileSync(join(data, 'owner.token'), 'utf8').trim()}` };
  const identities = await request(url, 'GET', '/iam/v2/identities?page_size=200', undefined, auth);
  t.is(identities.status, 200);
  const owner = (identities.json.identities as { uid: string; name: string }[]).find((i) => i.name === 'owner')!;
  t.truthy(owner);
  for (let i = 0; i < 20; i++) t.is((await request(url, 'GET', '/iam/v2/groups?page_size=200', undefined, auth)).status, 200);
  serve.child.kill('SIGTERM');
  assertClean(t, 'serve (SIGTERM)', await serve.exited);

  // Several exports: the abort struck at random, in about half the runs.
  for (let i = 0; i < 3; i++) {
    const exported = await run(['serve', 'export', '--data', data], env);
    assertClean(t, 'serve export', exported);
    t.regex(exported.stdout, /^organizations:/m);
  }

  const token = await run(['serve', 'token', '--data', data, '--identity', owner.uid], env);
  assertClean(t, 'serve token', token);
  t.regex(token.stdout, /^ey[\w-]+\.[\w-]+\.[\w-]+\n$/);

  const reset = await run(['serve', 'reset', '--data', data, '--yes'], env);
  assertClean(t, 'serve reset', reset);
  t.regex(reset.stderr, /bootstrapped it again/);
});

test('serve --rate-limit and --log as a process: the limit applies and is reported, the log masks tokens', async (t) => {
  if (!existsSync(join(root, 'dist/bundle/main.js'))) return t.fail('dist/ is not built (npm ci builds it; or run npm run build)');
  const { data, env } = scratch(t);
  // One request an hour: the second is refused whatever the machine's speed.
  const serve = started(['serve', '--port', '0', '--data', data, '--log', '--rate-limit', '1/h'], env);
  t.teardown(() => void serve.child.kill('SIGKILL'));
  const url = (await serve.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const auth = { authorization: `Bearer ${readFileSync(join(data, 'owner.token'), 'utf8').trim()}` };
  const first = await request(url, 'GET', '/iam/v2/groups?access_token=process-secret', undefined, auth);
  t.is(first.headers.get('ratelimit-policy'), '"default";q=1;w=3600');
  const second = await request(url, 'GET', '/iam/v2/groups', undefined, auth);
  t.is(second.status, 429);
  t.is(second.headers.get('retry-after'), '3600');
  serve.child.kill('SIGTERM');
  const e = await serve.exited;
  assertClean(t, 'serve (SIGTERM)', e);
  t.regex(e.stderr, /^Rate limit: 1\/h per caller$/m);
  t.regex(e.stderr, /^GET \/iam\/v2\/groups\?access_token=\*\*\* \d{3} /m);
  t.regex(e.stderr, /^GET \/iam\/v2\/groups 429 /m);
  t.false(e.stderr.includes('process-secret'));
});

test('serve saves the "local" profile only for the default data dir; a scratch server leaves it alone, --profile NAME saves another', async (t) => {
  if (!existsSync(join(root, 'dist/bundle/main.js'))) return t.fail('dist/ is not built (npm ci builds it; or run npm run build)');
  const { data, env } = scratch(t);
  const xdg = tempDir('pctl-proc-xdg-'); // the default data dir is $XDG_DATA_HOME/pctl
  t.teardown(() => rmSync(xdg, { recursive: true, force: true }));
  const profiles = () => JSON.parse(readFileSync(join(env.PCTL_CONFIG_DIR, 'config.json'), 'utf8')).profiles as Record<string, { apiUrl: string }>;
  const daily = await run(['config', 'set', 'local', 'api-url', 'http://127.0.0.1:8700'], env);
  assertClean(t, 'config set', daily);

  const serveOnce = async (args: string[]) => {
    const serve = started(['serve', '--port', '0', ...args], { ...env, XDG_DATA_HOME: xdg });
    t.teardown(() => void serve.child.kill('SIGKILL'));
    const url = (await serve.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const saved = profiles();
    await serve.waitFor(/Press Ctrl-C to stop/, 'stderr'); // its signal handlers are set
    serve.child.kill('SIGTERM');
    const exit = await serve.exited;
    assertClean(t, `serve ${args.join(' ')}`, exit);
    return { url, saved, stderr: exit.stderr };
  };

  const scratchServer = await serveOnce(['--data', data]);
  t.deepEqual(Object.keys(scratchServer.saved), ['local']);
  t.is(scratchServer.saved.local!.apiUrl, 'http://127.0.0.1:8700', 'a scratch server does not take "local"');
  t.regex(scratchServer.stderr, /No profile saved \(only the default data dir updates "local"; add --profile NAME to save one\)/);
  t.regex(scratchServer.stderr, /PCTL_API_URL=http:\/\/127\.0\.0\.1:\d+ PCTL_TOKEN=/, 'and says how to reach it without one');

  const named = await serveOnce(['--data', data, '--profile', 'scratch']);
  t.is(named.saved.scratch?.apiUrl, named.url);
  t.is(named.saved.local!.apiUrl, 'http://127.0.0.1:8700');

  const usual = await serveOnce([]);
  t.is(usual.saved.local!.apiUrl, usual.url, 'the default data dir updates "local"');
  t.true(existsSync(join(xdg, 'pctl', 'owner.token')));
});

test('the built CLI (the bundle bin/pctl.js loads): each output format, jq, api, config, completion and a write run from it', async (t) => {
  if (!existsSync(join(root, 'dist/bundle/main.js'))) return t.fail('dist/ is not built (npm ci builds it; or run npm run build)');
  const { data, env } = scratch(t);
  const serve = started(['serve', '--port', '0', '--data', data, '--demo'], env);
  t.teardown(() => void serve.child.kill('SIGKILL'));
  const url = (await serve.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const api = { ...env, PCTL_API_URL: url, PCTL_TOKEN: readFileSync(join(data, 'owner.token'), 'utf8').trim() };
  const org = (await request(url, 'GET', '/iam/v2/groups?page_size=1', undefined, { authorization: `Bearer ${api.PCTL_TOKEN}` })).json
    .groups as { uid: string; name: string }[];
  const expectations: [string[], RegExp][] = [
    [['groups', 'list'], new RegExp(`^${org[0]!.name}\\t`, 'm')],
    [['groups', 'list', '-o', 'wide'], /^NAME +UID +DESCRIPTION +VERIFIED/],
    [['groups', 'list', '-o', 'yaml'], /^- uid: /m],
    [['groups', 'list', '-o', 'csv'], /^NAME,UID,DESCRIPTION/],
    [['groups', 'list', '-o', 'tree'], new RegExp(`^${org[0]!.name}`, 'm')],
    [['identities', 'list', '-o', 'ndjson'], /^\{"uid":/m],
    [['groups', 'list', '--jq', '.[0].uid'], new RegExp(`^${org[0]!.uid}$`, 'm')],
    [['groups', 'get', org[0]!.uid, '-o', 'json'], /"uid":/],
    [['groups', 'create', 'from-the-bundle', '--parent', org[0]!.uid, '-o', 'json'], /"name": "from-the-bundle"/],
    [['roles', 'list', '--json', 'name'], /"name": "owner"/],
    [['api', '/iam/v2/groups?page_size=1'], /"groups"/],
    [['config', 'list', '-o', 'json'], /^\[/],
    [['completion', 'bash'], /complete /],
    [['groups', '--help'], /Usage: pctl groups/],
  ];
  for (const [args, expected] of expectations) {
    const e = await run(args, api);
    assertClean(t, args.join(' '), e);
    t.regex(e.stdout, expected, args.join(' '));
  }
  serve.child.kill('SIGTERM');
  assertClean(t, 'serve (SIGTERM)', await serve.exited);
});
