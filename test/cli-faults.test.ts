// The CLI against a misbehaving server: stalls, reset connections, invalid JSON, and a
// listing interrupted with Ctrl-C. Each gives one clear error line and the right exit code,
// within the timeout.
import test from 'ava';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, lines } from './helpers/cli.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function stub(handler: Handler) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const configDir = mkdtempSync(join(tmpdir(), 'pctl-faults-'));
  return {
    url,
    pctl: cli({ PCTL_API_URL: url, PCTL_TOKEN: 'test-token', PCTL_CONFIG_DIR: configDir }),
    env: { PCTL_API_URL: url, PCTL_TOKEN: 'test-token', PCTL_CONFIG_DIR: configDir },
    close: () => {
      server.closeAllConnections();
      server.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

const group = (i: number) => ({
  uid: `${'a'.repeat(40)}/${String(i).padStart(16, '0')}`, name: `g${i}`, description: '', resourceLimits: {}, verified: false,
  createTime: '2026-11-22T00:00:00.000Z', updateTime: '2026-11-22T00:00:00.000Z',
});

test('a server that stalls: a clear timeout error, exit 1, within the timeout', async (t) => {
  const srv = await stub(() => { /* never answers */ });
  t.teardown(srv.close);
  const res = await srv.pctl(['groups', 'list', '--timeout', '500ms', '--retries', '0']);
  t.is(res.code, 1);
  t.is(res.stdout, '');
  t.regex(lines(res.stderr)[0]!, /^error: .*(timed out|timeout)/i);
  t.false(res.stderr.includes('    at '), 'no stack trace');
  t.true(res.ms < 3000, `took ${res.ms} ms`);
});

test('a server that resets connections: retried, then a clear error, exit 1', async (t) => {
  let attempts = 0;
  const srv = await stub((req) => {
    attempts++;
    req.socket.destroy();
  });
  t.teardown(srv.close);
  const res = await srv.pctl(['groups', 'list', '--retries', '1']);
  t.is(res.code, 1);
  t.is(res.stdout, '');
  t.is(attempts, 2, 'a GET is retried once with --retries 1');
  t.regex(res.stderr, /^error: /m);
  t.false(res.stderr.includes('    at '));
});

test('a server that returns invalid JSON: a clear error naming it, exit 1', async (t) => {
  const srv = await stub((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"groups": [');
  });
  t.teardown(srv.close);
  const res = await srv.pctl(['groups', 'list']);
  t.is(res.code, 1);
  t.is(res.stdout, '');
  t.regex(lines(res.stderr)[0]!, /^error: .*JSON/i);
});

test('a response that breaks the schema names the field', async (t) => {
  const srv = await stub((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ groups: [{ ...group(1), createTime: 42 }], totalCount: '1' }));
  });
  t.teardown(srv.close);
  const res = await srv.pctl(['groups', 'list']);
  t.is(res.code, 1);
  t.regex(res.stderr, /createTime/);
});

test('Ctrl-C in the middle of a listing exits 130 without a stack trace', async (t) => {
  let served = 0;
  const srv = await stub((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.searchParams.get('page_token')) return; // the second page never comes
    served++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ groups: [group(1), group(2)], nextPageToken: 'next', totalCount: '4', skipped: 0 }));
  });
  t.teardown(srv.close);
  const child = spawn(process.execPath, ['bin/pctl.js', 'groups', 'list', '--page-size', '2'], { env: { ...process.env, ...srv.env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const deadline = Date.now() + 10_000;
  while (!out.includes('g2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.true(out.includes('g2'), `first page printed (stderr: ${err})`);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  t.is(code, 130);
  t.false(err.includes('    at '), 'no stack trace');
  t.is(served, 1);
});
