// The container image of pctl serve (container/Containerfile, scripts/build-image.mjs): built
// with buildah, inspected (entrypoint, command, port, volume, user; Node, pctl and the SQLite
// addon inside), then run with podman, its port published on 127.0.0.1 only: readiness on
// /healthz, then the owner's token from inside the container and the CLI against it.
import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const root = join(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const tag = `localhost/pctl-test:${process.pid}`;

async function sh(cmd: string, args: string[], timeoutMin = 2): Promise<string> {
  try {
    return (await promisify(execFile)(cmd, args, { cwd: root, timeout: timeoutMin * 60_000, maxBuffer: 16 << 20, encoding: 'utf8' })).stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')}: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
  }
}

/**
 * podman run's options for this machine, as measured on it: runc, because crun refuses a
 * machine with cgroups v1 and v2 mounted together ("cgroups in hybrid mode not supported");
 * limits within the caller's own, because podman otherwise asks for more open files and
 * processes than a runtime without CAP_SYS_RESOURCE may set ("setrlimit: Operation not permitted").
 */
const RUN_OPTIONS = ['--runtime', 'runc', '--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];

/** What the container wrote, stdout and stderr (serve reports on stderr). */
async function logs(id: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)('podman', ['logs', id], { timeout: 60_000, encoding: 'utf8' });
  return stdout + stderr;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

test.before(async () => {
  // Bounded by the script itself (each step) and by the test's timeout.
  await sh('node', ['scripts/build-image.mjs', '--tag', tag], 14);
});

test.after.always(async () => {
  await sh('podman', ['rmi', '--force', tag]).catch(() => {});
});

test.serial('the image: pctl serve on 0.0.0.0:8700 by default, /data a volume, not root; Node, pctl and its SQLite addon inside', async (t) => {
  const [config] = JSON.parse(await sh('podman', ['image', 'inspect', tag, '--format', '{{json .Config}}']).then((s) => `[${s}]`)) as {
    Entrypoint: string[]; Cmd: string[]; ExposedPorts: Record<string, unknown>; Volumes: Record<string, unknown>; User: string; Env: string[];
  }[];
  t.deepEqual(config!.Entrypoint, ['/usr/local/bin/pctl']);
  t.deepEqual(config!.Cmd.slice(0, 5), ['serve', '--host', '0.0.0.0', '--port', '8700']);
  t.deepEqual(Object.keys(config!.ExposedPorts), ['8700/tcp']);
  t.deepEqual(Object.keys(config!.Volumes), ['/data']);
  t.is(config!.User, '1000:1000');
  t.true(config!.Env.includes('PCTL_DATA_DIR=/data'));

  // The files, through a working container's mount (no runtime needed).
  const container = (await sh('buildah', ['from', '--pull=never', tag])).trim();
  try {
    const mount = (await sh('buildah', ['mount', container])).trim();
    t.true(existsSync(join(mount, 'usr/local/bin/node')));
    t.is(JSON.parse(readFileSync(join(mount, 'opt/pctl/node_modules/pctl/package.json'), 'utf8')).version, version);
    t.true(existsSync(join(mount, 'opt/pctl/node_modules/pctl/dist/bundle/main.js')));
    t.true(readdirSync(join(mount, 'opt/pctl/node_modules/better-sqlite3/prebuilds')).includes('linux-x64.node'));
    // Only production dependencies: none of the dev tools.
    t.false(existsSync(join(mount, 'opt/pctl/node_modules/typescript')));
  } finally {
    await sh('buildah', ['rm', container]);
  }
});

test.serial('run: ready on /healthz, the owner token from inside, the CLI and HTTP against it, a clean stop', async (t) => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const id = (await sh('podman', ['run', ...RUN_OPTIONS, '--detach', '--publish', `127.0.0.1:${port}:8700`, tag])).trim();
  t.teardown(() => sh('podman', ['rm', '--force', '--volumes', id]).then(() => {}, () => {}));

  // Readiness as a CI service waits for it: until the published port answers 200.
  let health: Awaited<ReturnType<typeof request>> | undefined;
  for (let attempt = 0; attempt < 600 && health?.status !== 200; attempt++) {
    try {
      health = await request(url, 'GET', '/healthz');
    } catch {
      // Refused or reset until serve listens inside.
    }
    if (health?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.is(health?.status, 200, await logs(id));
  t.deepEqual(health!.json, { status: 'ok', version, store: { engine: 'sqlite', ready: true } });
  // The image's own health check agrees.
  await t.notThrowsAsync(sh('podman', ['exec', id, 'node', '/opt/pctl/healthcheck.mjs']));

  const token = (await sh('podman', ['exec', id, 'pctl', 'serve', 'token'])).trim();
  t.is((await request(url, 'GET', '/iam/v2/groups')).status, 401);
  const groups = await request(url, 'GET', '/iam/v2/groups', undefined, { authorization: `Bearer ${token}` });
  t.is(groups.status, 200);
  t.is(groups.json.groups.length, 1);

  // The CLI on this machine against the container.
  const env = { ...process.env, PCTL_API_URL: url, PCTL_TOKEN: token, PCTL_CONFIG_DIR: tempDir() };
  const created = await promisify(execFile)(process.execPath, [join(root, 'bin/pctl.js'), 'groups', 'create', 'from-ci', '--parent', groups.json.groups[0].uid, '-o', 'json'], { env, timeout: 60_000 });
  t.is(JSON.parse(created.stdout).name, 'from-ci');

  // SIGTERM (podman stop): serve shuts down by itself, exit code 0.
  await sh('podman', ['stop', '--time', '30', id]);
  t.is((await sh('podman', ['inspect', id, '--format', '{{.State.ExitCode}}'])).trim(), '0');
  t.regex(await logs(id), /SIGTERM: shutting down/);
});
