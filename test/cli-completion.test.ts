// Shell completion: the checked-in scripts are what the generator makes of the command tree;
// `pctl __complete` offers live names and uids and fails silently; and each script, loaded in
// its real shell, completes commands, flag values and a group NAME from a running serve.
// No test races a timer: in-process, the completion's deadline is injected (it never passes,
// or the test fires it once the stub has the request); the shells' pctl gets a deadline far
// beyond the hang guard (PCTL_COMPLETE_TIMEOUT), so a loaded machine only makes them slower.
import test from 'ava';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAgent } from '../src/client/http.js';
import { COMPLETE_TIMEOUT_MS } from '../src/cli/completion/complete.js';
import { generatedFiles } from '../src/cli/gen.js';
import { cli, lines, type RunOptions } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';
import { manualDeadline, noDeadline, stub } from './helpers/stub.js';
import { testNeeding } from './helpers/tools.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

let srv: TestServer;
let env: Record<string, string>;
let runCli: ReturnType<typeof cli>;
let platformUid: string;
const twinUids: string[] = [];

/** pctl in-process; the completion's deadline never passes unless a test injects its own. */
const pctl = (argv: string[], opts: RunOptions = {}) => runCli(argv, { clock: { now: () => new Date(), deadline: noDeadline }, ...opts });

test.before(async () => {
  srv = await startTestServer();
  const res = await srv.call('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'platform' } });
  if (res.status !== 200) throw new Error(`create group: ${res.status} ${res.text}`);
  platformUid = res.json.uid;
  await srv.call('POST', '/iam/v2/groups', { parent: platformUid, group: { name: 'web' } });
  // Two groups with one name (the API allows it): bash must not offer an ambiguous name.
  for (let i = 0; i < 2; i++) twinUids.push((await srv.call('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'twin' } })).json.uid);
  // A `pctl` on PATH for the shells: the built CLI (npm ci builds it; so does npm run build).
  const bin = tempDir('pctl-bin-');
  writeFileSync(join(bin, 'pctl'), `#!/bin/sh\nexec '${process.execPath}' '${join(root, 'bin/pctl.js')}' "$@"\n`);
  chmodSync(join(bin, 'pctl'), 0o755);
  const home = tempDir('pctl-home-');
  env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    PCTL_API_URL: srv.url,
    PCTL_TOKEN: srv.ownerToken,
    PCTL_CONFIG_DIR: tempDir('pctl-cfg-'),
    LANG: 'C.UTF-8',
  };
  runCli = cli(env);
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

// ---- generated scripts ----

for (const file of ['completions/pctl.bash', 'completions/_pctl', 'completions/pctl.fish']) {
  test(`${file} is what \`npm run gen\` produces from the command tree`, (t) => {
    const checkedIn = readFileSync(join(root, file), 'utf8');
    t.true(checkedIn === generatedFiles()[file], `${file} is stale: run \`npm run gen\` and commit the result`);
  });
}

test('pctl completion SHELL prints the checked-in script; an unknown shell is a usage error', async (t) => {
  for (const [shell, file] of [['bash', 'pctl.bash'], ['zsh', '_pctl'], ['fish', 'pctl.fish']] as const) {
    const r = await pctl(['completion', shell]);
    t.is(r.code, 0, r.stderr);
    t.is(r.stdout, readFileSync(join(root, 'completions', file), 'utf8'));
  }
  const bad = await pctl(['completion', 'powershell']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /Allowed choices are bash, zsh, fish/);
});

// ---- pctl __complete ----

test('__complete offers group names and uids for a group argument, filtered by prefix', async (t) => {
  const all = await pctl(['__complete', 'groups', 'get', '']);
  t.is(all.code, 0);
  t.is(all.stderr, '');
  const values = lines(all.stdout).map((l) => l.split('\t')[0]);
  t.true(values.includes('platform'));
  t.true(values.includes('web'));
  t.true(values.includes(platformUid));
  t.true(lines(all.stdout).includes(`platform\t${platformUid}`), 'value<TAB>description');

  const some = await pctl(['__complete', 'groups', 'list', '--descendants-of', 'pl']);
  t.deepEqual(lines(some.stdout), [`platform\t${platformUid}`]);
  const eq = await pctl(['__complete', 'groups', 'create', 'x', '--parent=we']);
  t.deepEqual(lines(eq.stdout).map((l) => l.split('\t')[0]), ['web']);
  // A uid path drills down to the children of that group.
  const below = await pctl(['__complete', 'groups', 'delete', `${platformUid}/`]);
  t.deepEqual(lines(below.stdout).map((l) => l.split('\t')[1]), ['web']);
});

test('__complete for bash: one column, each group once: its name when unique, else its uid', async (t) => {
  const r = await pctl(['__complete', 'groups', 'get', ''], { env: { PCTL_COMPLETE_SHELL: 'bash' } });
  const values = lines(r.stdout).map((l) => l.split('\t')[0]!);
  t.deepEqual(values.filter((v) => !v.includes('/') && !/^[0-9a-f]{40}$/.test(v)).sort(), ['local', 'platform', 'web']);
  t.deepEqual(values.filter((v) => v.includes('/')).sort(), [...twinUids].sort(), 'the two groups named twin by uid');
  t.false(values.includes('twin'));
  t.is(values.length, 5, 'one value per group (local is the organization)');
  const typingUid = await pctl(['__complete', 'groups', 'get', srv.organizationUid.slice(0, 6)], { env: { PCTL_COMPLETE_SHELL: 'bash' } });
  t.true(lines(typingUid.stdout).some((l) => l.startsWith(srv.organizationUid)), 'a uid being typed completes to uids');
});

test('__complete offers role names for --role and nothing where no live value is expected', async (t) => {
  const roles = await pctl(['__complete', 'role-bindings', 'create', '--parent', 'platform', '--role', '']);
  t.deepEqual(lines(roles.stdout).map((l) => l.split('\t')[0]!).filter((n) => ['owner', 'editor', 'viewer'].includes(n)).sort(), ['editor', 'owner', 'viewer']);
  for (const argv of [['groups', ''], ['groups', 'create', ''], ['groups', 'list', '--name', ''], ['-o', ''], []]) {
    const r = await pctl(['__complete', ...argv]);
    t.is(r.code, 0);
    t.is(r.stdout, '', argv.join(' '));
  }
});

test('__complete fails silently and quickly: unreachable API, bad token, no configuration', async (t) => {
  const closed = await pctl(['__complete', 'groups', 'get', ''], { env: { PCTL_API_URL: 'http://127.0.0.1:9' } });
  t.deepEqual([closed.code, closed.stdout, closed.stderr], [0, '', '']);
  const denied = await pctl(['__complete', 'groups', 'get', ''], { env: { PCTL_TOKEN: 'not-a-token' } });
  t.deepEqual([denied.code, denied.stdout, denied.stderr], [0, '', '']);
  const none = await pctl(['__complete', 'groups', 'get', ''], { env: { PCTL_API_URL: undefined, PCTL_TOKEN: undefined } });
  t.deepEqual([none.code, none.stdout, none.stderr], [0, '', '']);
  // --api-url on the line being completed is honoured like on any command.
  const flag = await pctl(['__complete', '--api-url', 'http://127.0.0.1:9', 'groups', 'get', '']);
  t.deepEqual([flag.code, flag.stdout], [0, '']);
});

test('__complete gives up within its timeout on a server that never answers', async (t) => {
  const silent = await stub(t, () => {
    /* never answers */
  });
  // The completion's deadline passes once the server has the request: it gives up, silently.
  const d = manualDeadline();
  const running = pctl(['__complete', 'groups', 'get', ''], { env: { PCTL_API_URL: silent.url }, clock: { now: () => new Date(), deadline: d.deadline } });
  await silent.arrived(1);
  d.fire();
  const r = await running;
  t.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  t.deepEqual(d.asked, [COMPLETE_TIMEOUT_MS], 'one deadline, of the completion timeout, for the one request');
});

test('PCTL_COMPLETE_TIMEOUT sets the completion timeout; an invalid value keeps the default', async (t) => {
  for (const [value, ms] of [['10s', 10_000], ['250ms', 250], ['soon', COMPLETE_TIMEOUT_MS]] as const) {
    const d = manualDeadline(); // never fired: the serve answers
    const r = await pctl(['__complete', 'groups', 'get', 'pla'], { env: { PCTL_COMPLETE_TIMEOUT: value }, clock: { now: () => new Date(), deadline: d.deadline } });
    t.deepEqual(lines(r.stdout), [`platform\t${platformUid}`], value);
    t.deepEqual(d.asked, [ms], value);
  }
});

// ---- the scripts in their shells ----

function shell(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    // The shells' pctl __complete gets a deadline no loaded machine reaches, so the timeout
    // here is the only bound, and a hang guard only.
    const shellEnv = { ...env, PCTL_COMPLETE_TIMEOUT: '10m' };
    execFile(cmd, args, { cwd: root, env: shellEnv, timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${err.message}\n${stderr}`));
      else resolvePromise({ stdout, stderr });
    });
  });
}

function needsDist(t: import('ava').ExecutionContext): boolean {
  if (existsSync(join(root, 'dist/cli/completion/complete.js'))) return true;
  t.fail('dist/ is not built (npm ci builds it; or run npm run build): the shells run bin/pctl.js');
  return false;
}

/** Runs bash's completion function as `complete -F` would, for the words given (the last is the current one). */
async function bashComplete(words: string[]): Promise<string[]> {
  const script =
    'source completions/pctl.bash; complete -p pctl >&2; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); ' +
    'COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _pctl; printf "%s\\n" "${COMPREPLY[@]}"';
  const { stdout, stderr } = await shell('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...words]);
  if (!stderr.includes('complete -F _pctl pctl')) throw new Error(`not registered: ${stderr}`);
  return lines(stdout);
}

// A missing shell registers its test as skipped (failing with PCTL_REQUIRE_SHELLS, as in CI).
testNeeding(['bash'], 'bash: commands, flags, -o values and a group name from the running serve', async (t) => {
  if (!needsDist(t)) return;
  t.deepEqual(await bashComplete(['pctl', 'gr']), ['groups']);
  t.deepEqual(await bashComplete(['pctl', 'groups', '']), ['list', 'get', 'create', 'update', 'delete']);
  t.deepEqual(await bashComplete(['pctl', 'groups', 'ls', '--desc']), ['--descendants-of']);
  t.deepEqual(await bashComplete(['pctl', 'groups', 'list', '-o', 'nd']), ['ndjson']);
  t.deepEqual(await bashComplete(['pctl', 'completion', '']), ['bash', 'zsh', 'fish']);
  // live: a NAME, through pctl __complete
  t.deepEqual(await bashComplete(['pctl', 'groups', 'get', 'plat']), ['platform']);
  const every = await bashComplete(['pctl', 'groups', 'get', '']);
  t.true(every.includes('platform') && every.includes(twinUids[0]!), every.join(' '));
  t.false(every.includes(platformUid), 'names, not names and uids in two look-alike columns');
  // --flag=value arrives split at '=' (COMP_WORDBREAKS)
  t.deepEqual(await bashComplete(['pctl', 'groups', 'list', '--children-of', '=', 'pla']), ['platform']);
  t.deepEqual(await bashComplete(['pctl', 'role-bindings', 'create', '--role', 'vi']), ['viewer']);
});

/** zsh: the completion function with _describe stubbed to print its candidates (no zpty). */
async function zshComplete(words: string[]): Promise<string[]> {
  const script =
    'autoload -U compinit && compinit -u -D; source completions/_pctl; ' +
    '[[ ${_comps[pctl]} == _pctl ]] || { print -u2 "not registered"; exit 1; }; ' +
    '_describe() { print -rl -- "${(@P)${@[-1]}}"; }; compset() { :; }; ' +
    'words=("$@"); CURRENT=$#; _pctl';
  const { stdout } = await shell('zsh', ['-f', '-c', script, 'zsh', ...words]);
  return lines(stdout).map((l) => l.replace(/(?<!\\):.*$/, '').replace(/\\:/g, ':'));
}

testNeeding(['zsh'], 'zsh: commands, flags, -o values and a group name from the running serve', async (t) => {
  if (!needsDist(t)) return;
  t.true((await zshComplete(['pctl', ''])).includes('role-bindings'));
  t.deepEqual(await zshComplete(['pctl', 'groups', '']), ['list', 'get', 'create', 'update', 'delete']);
  t.true((await zshComplete(['pctl', 'groups', 'list', '--'])).includes('--descendants-of'));
  t.deepEqual(await zshComplete(['pctl', '--output', '']), ['table', 'wide', 'json', 'yaml', 'ndjson', 'id', 'csv', 'tree']);
  const live = await zshComplete(['pctl', 'groups', 'get', 'pla']);
  t.deepEqual(live, ['platform']);
  t.deepEqual(await zshComplete(['pctl', 'groups', 'list', '--descendants-of=pla']), ['platform']);
});

async function fishComplete(line: string): Promise<string[]> {
  const { stdout } = await shell('fish', ['--no-config', '-c', 'source completions/pctl.fish; complete -C $argv[1]', line]);
  return lines(stdout).map((l) => l.split('\t')[0]!);
}

testNeeding(['fish'], 'fish: commands, flags, -o values and a group name from the running serve', async (t) => {
  if (!needsDist(t)) return;
  t.deepEqual((await fishComplete('pctl groups ')).sort(), ['create', 'delete', 'get', 'list', 'update']);
  t.true((await fishComplete('pctl groups list --desc')).includes('--descendants-of'));
  t.deepEqual((await fishComplete('pctl -o ')).sort(), ['csv', 'id', 'json', 'ndjson', 'table', 'tree', 'wide', 'yaml']);
  t.deepEqual(await fishComplete('pctl groups get pla'), ['platform']);
  t.deepEqual(await fishComplete('pctl groups create x --parent=we'), ['--parent=web']);
});
