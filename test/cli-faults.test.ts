// The CLI against a misbehaving server: stalls, reset connections, invalid JSON, and a
// listing interrupted with Ctrl-C. Each gives one clear error line and the right exit code.
// Nothing here races a timer: a stall ends when the test fires the request's deadline (once
// the stub has the request), and Ctrl-C is sent once the first page is on stdout.
import test from 'ava';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import type http from 'node:http';
import type { Clock } from '../src/cli/context.js';
import { cli, lines } from './helpers/cli.js';
import { tempDir } from './helpers/temp.js';
import { manualDeadline, noDeadline, stub, type StubHandler } from './helpers/stub.js';

async function faulty(t: import('ava').ExecutionContext, handler: StubHandler) {
  const s = await stub(t, handler);
  const configDir = tempDir('pctl-faults-');
  t.teardown(() => rmSync(configDir, { recursive: true, force: true }));
  const env = { PCTL_API_URL: s.url, PCTL_TOKEN: 'test-token', PCTL_CONFIG_DIR: configDir };
  return { stub: s, env, pctl: cli(env) };
}

const group = (i: number) => ({
  uid: `${'a'.repeat(40)}/${String(i).padStart(16, '0')}`, name: `g${i}`, description: '', resourceLimits: {}, verified: false,
  createTime: '2026-11-22T00:00:00.000Z', updateTime: '2026-11-22T00:00:00.000Z',
});

const json = (res: http.ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
};

/** The real clock, with retries that do not wait (recorded) and attempts without a timer. */
function quickClock(waits: number[] = []): Clock {
  return { now: () => new Date(), sleep: async (ms) => void waits.push(ms), deadline: noDeadline };
}

test('a server that stalls: a clear timeout error, exit 1, once --timeout has passed', async (t) => {
  const srv = await faulty(t, () => { /* never answers */ });
  const d = manualDeadline();
  const running = srv.pctl(['groups', 'list', '--timeout', '500ms', '--retries', '0'], { clock: { now: () => new Date(), deadline: d.deadline } });
  await srv.stub.arrived(1);
  d.fire();
  const res = await running;
  t.deepEqual(d.asked, [500], 'the attempt was bounded by --timeout');
  t.is(res.code, 1);
  t.is(res.stdout, '');
  t.regex(lines(res.stderr)[0]!, /^error: .*(timed out|timeout)/i);
  t.false(res.stderr.includes('    at '), 'no stack trace');
});

test('a server that resets connections: retried, then a clear error, exit 1', async (t) => {
  const srv = await faulty(t, (_req, res) => {
    res.socket?.destroy();
  });
  const waits: number[] = [];
  const res = await srv.pctl(['groups', 'list', '--retries', '1'], { clock: quickClock(waits) });
  t.is(res.code, 1);
  t.is(res.stdout, '');
  t.is(srv.stub.requests.length, 2, 'a GET is retried once with --retries 1');
  t.is(waits.length, 1);
  t.regex(res.stderr, /^error: /m);
  t.false(res.stderr.includes('    at '));
});

test('a server that returns invalid JSON: a clear error naming it, exit 1', async (t) => {
  const srv = await faulty(t, (_req, res) => json(res, '{"groups": ['));
  const res = await srv.pctl(['groups', 'list'], { clock: quickClock() });
  t.is(res.code, 1);
  t.is(res.stdout, '');
  t.regex(lines(res.stderr)[0]!, /^error: .*JSON/i);
});

test('a response that breaks the schema names the field', async (t) => {
  const srv = await faulty(t, (_req, res) => json(res, JSON.stringify({ groups: [{ ...group(1), createTime: 42 }], totalCount: '1' })));
  const res = await srv.pctl(['groups', 'list'], { clock: quickClock() });
  t.is(res.code, 1);
  t.regex(res.stderr, /createTime/);
});

test('Ctrl-C in the middle of a listing exits 130 without a stack trace', async (t) => {
  let served = 0;
  const srv = await faulty(t, (req, res) => {
    if (new URL(req.url, 'http://x').searchParams.get('page_token')) return; // the second page never comes
    served++;
    json(res, JSON.stringify({ groups: [group(1), group(2)], nextPageToken: 'next', totalCount: '4', skipped: 0 }));
  });
  // The built CLI in its own process (a real SIGINT); its default 30 s timeout never comes
  // into play: Ctrl-C is sent as soon as the first page is printed and page two requested.
  const child = spawn(process.execPath, ['bin/pctl.js', 'groups', 'list', '--page-size', '2'], { env: { ...process.env, ...srv.env } });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const firstPage = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('g2')) resolve();
    });
    void exited.then((code) => reject(new Error(`pctl exited (${code}) before printing the first page; stderr: ${err}`)));
  });
  await firstPage;
  await srv.stub.arrived(2);
  child.kill('SIGINT');
  const code = await exited;
  t.is(code, 130);
  t.false(err.includes('    at '), 'no stack trace');
  t.is(served, 1);
});
