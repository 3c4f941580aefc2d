// Shell completion: the checked-in scripts are what the generator makes of the command tree;
// `pctl __complete` offers live names and uids and fails silently; and each script, loaded in
// its real shell, completes commands, flag values and a group NAME from a running serve.
import test from 'ava';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAgent } from '../src/client/http.js';
import { generatedFiles } from '../src/cli/gen.js';
import { cli, lines } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** CI installs bash, zsh and fish (.ci/run); elsewhere a missing shell skips its test. */
const required = Boolean(process.env.PCTL_REQUIRE_SHELLS);
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

let srv: TestServer;
let env: Record<string, string>;
let pctl: ReturnType<typeof cli>;
let platformUid: string;

test.before(async () => {
  srv = await startTestServer();
  const res = await srv.call('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'platform' } });
  if (res.status !== 200) throw new Error(`create group: ${res.status} ${res.text}`);
  platformUid = res.json.uid;
  await srv.call('POST', '/iam/v2/groups', { parent: platformUid, group: { name: 'web' } });
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
  pctl = cli(env);
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
  const none = await pctl(['__complete', 'groups', 'get', ''], { env: { PCTL_API_URL: '', PCTL_TOKEN: '' } });
  t.deepEqual([none.code, none.stdout, none.stderr], [0, '', '']);
  // --api-url on the line being completed is honoured like on any command.
  const flag = await pctl(['__complete', '--api-url', 'http://127.0.0.1:9', 'groups', 'get', '']);
  t.deepEqual([flag.code, flag.stdout], [0, '']);
});

test('__complete gives up within its timeout on a server that never answers', async (t) => {
  const { createServer } = await import('node:net');
  const sockets: import('node:net').Socket[] = [];
  const silent = createServer((s) => void sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const port = (silent.address() as import('node:net').AddressInfo).port;
  try {
    const r = await pctl(['__complete', 'groups', 'get', ''], { env: { PCTL_API_URL: `http://127.0.0.1:${port}` } });
    t.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    t.true(r.ms < 3000, `took ${Math.round(r.ms)} ms`);
  } finally {
    sockets.forEach((s) => s.destroy());
    silent.close();
  }
});

// ---- the scripts in their shells ----

function shell(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    execFile(cmd, args, { cwd: root, env, timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${err.message}\n${stderr}`));
      else resolvePromise({ stdout, stderr });
    });
  });
}

function needs(t: import('ava').ExecutionContext, cmd: string): boolean {
  if (has(cmd)) return true;
  if (required) t.fail(`${cmd} is not installed (.ci/run installs bash, zsh and fish)`);
  else {
    t.log(`SKIPPED: ${cmd} is not installed (apt-get install ${cmd})`);
    t.pass();
  }
  return false;
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

test('bash: commands, flags, -o values and a group name from the running serve', async (t) => {
  if (!needs(t, 'bash') || !needsDist(t)) return;
  t.deepEqual(await bashComplete(['pctl', 'gr']), ['groups']);
  t.deepEqual(await bashComplete(['pctl', 'groups', '']), ['list', 'get', 'create', 'update', 'delete']);
  t.deepEqual(await bashComplete(['pctl', 'groups', 'ls', '--desc']), ['--descendants-of']);
  t.deepEqual(await bashComplete(['pctl', 'groups', 'list', '-o', 'nd']), ['ndjson']);
  t.deepEqual(await bashComplete(['pctl', 'completion', '']), ['bash', 'zsh', 'fish']);
  // live: a NAME, through pctl __complete
  t.deepEqual(await bashComplete(['pctl', 'groups', 'get', 'plat']), ['platform']);
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

test('zsh: commands, flags, -o values and a group name from the running serve', async (t) => {
  if (!needs(t, 'zsh') || !needsDist(t)) return;
  t.true((await zshComplete(['pctl', ''])).includes('role-bindings'));
  t.deepEqual(await zshComplete(['pctl', 'groups', '']), ['list', 'get', 'create', 'update', 'delete']);
  t.true((await zshComplete(['pctl', 'groups', 'list', '--'])).includes('--descendants-of'));
  t.deepEqual(await zshComplete(['pctl', '--output', '']), ['table', 'wide', 'json', 'yaml', 'ndjson', 'id']);
  const live = await zshComplete(['pctl', 'groups', 'get', 'pla']);
  t.deepEqual(live, ['platform']);
  t.deepEqual(await zshComplete(['pctl', 'groups', 'list', '--descendants-of=pla']), ['platform']);
});

async function fishComplete(line: string): Promise<string[]> {
  const { stdout } = await shell('fish', ['--no-config', '-c', 'source completions/pctl.fish; complete -C $argv[1]', line]);
  return lines(stdout).map((l) => l.split('\t')[0]!);
}

test('fish: commands, flags, -o values and a group name from the running serve', async (t) => {
  if (!needs(t, 'fish') || !needsDist(t)) return;
  t.deepEqual((await fishComplete('pctl groups ')).sort(), ['create', 'delete', 'get', 'list', 'update']);
  t.true((await fishComplete('pctl groups list --desc')).includes('--descendants-of'));
  t.deepEqual((await fishComplete('pctl -o ')).sort(), ['id', 'json', 'ndjson', 'table', 'wide', 'yaml']);
  t.deepEqual(await fishComplete('pctl groups get pla'), ['platform']);
  t.deepEqual(await fishComplete('pctl groups create x --parent=we'), ['--parent=web']);
});
