// One serve per data dir, by an OS lock: a second is refused naming the first's pid; a lock
// whose holder was killed (-9) is free at once; a stale pid, even a live process's, never
// blocks. And each cause of a failed start has its own message.
import test from 'ava';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirLockedError, lockDataDir } from '../src/server/data/lock.js';
import { cli } from './helpers/cli.js';
import { startTestServer, tempDir } from './helpers/serve.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

test('a second lock on a data dir is refused, naming the holder; released, it can be taken again', (t) => {
  const dir = tempDir();
  const unlock = lockDataDir(dir);
  const err = t.throws(() => lockDataDir(dir), { instanceOf: DataDirLockedError });
  t.regex(err.message, new RegExp(`another pctl serve \\(pid ${process.pid}\\) is already using`));
  unlock();
  t.notThrows(() => lockDataDir(dir)());
});

test('a lock held by a process killed with SIGKILL is free at once', async (t) => {
  const dir = tempDir();
  // A child that takes the lock, says so, and waits to be killed.
  const child = spawn(process.execPath, ['--import=tsx', '-e', `
    const { lockDataDir } = await import(${JSON.stringify(join(root, 'src/server/data/lock.ts'))});
    lockDataDir(${JSON.stringify(dir)});
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1000);
  `], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => child.kill('SIGKILL')); // a failed assertion must not leave it holding the run open
  await new Promise<void>((done, failed) => {
    child.stdout.on('data', (b: Buffer) => b.toString().includes('locked') && done());
    child.on('exit', (code) => failed(new Error(`the child exited (${code}) before locking`)));
  });
  t.throws(() => lockDataDir(dir), { instanceOf: DataDirLockedError, message: new RegExp(`pid ${child.pid}`) });
  const exited = new Promise((done) => child.on('exit', done));
  child.kill('SIGKILL');
  await exited;
  t.notThrows(() => lockDataDir(dir)(), 'no wait, no stale-lock check: the kernel released it');
});

test('a stale pid file naming a live, unrelated process does not block; nor does an old-style lock file', async (t) => {
  const dir = tempDir();
  writeFileSync(join(dir, 'serve.pid'), '1\n');
  writeFileSync(join(dir, 'serve.lock'), `${process.ppid}\n`);
  const srv = await startTestServer({ dataDir: dir });
  t.teardown(() => srv.dispose());
  t.is((await srv.call('GET', '/iam/v2/groups')).status, 200);
});

test('each failed start says its own cause: port in use, data dir not writable, data dir in use', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });

  const portTaken = await pctl(['serve', '--port', String(srv.port), '--data', tempDir()]);
  t.is(portTaken.code, 1);
  t.regex(portTaken.stderr, new RegExp(`^error: port ${srv.port} on 127.0.0.1 is already in use`));

  // sysfs refuses new entries to everyone, root included.
  const unwritable = await pctl(['serve', '--port', '0', '--data', '/sys/pctl-test-data']);
  t.is(unwritable.code, 1);
  t.regex(unwritable.stderr, /^error: cannot use the data dir \/sys\/pctl-test-data: permission denied/);
  t.notRegex(unwritable.stderr, /listen|port/);

  // procfs answers ENOENT to mkdir under an existing dir: a recursive mkdir used to spin forever.
  const procfs = await pctl(['serve', '--port', '0', '--data', '/proc/pctl-test-data']);
  t.is(procfs.code, 1);
  t.regex(procfs.stderr, /^error: cannot use the data dir \/proc\/pctl-test-data: it cannot be created there/);

  const inUse = await pctl(['serve', '--port', '0', '--data', srv.dataDir]);
  t.is(inUse.code, 1);
  t.regex(inUse.stderr, /^error: another pctl serve \(pid \d+\) is already using/);
});
