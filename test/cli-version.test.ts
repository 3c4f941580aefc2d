// pctl version (the client's and the server's, from GET /healthz), -o yml, and -o tree where
// it has no meaning: the real CLI against a real serve, a stub health endpoint and no server.
import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { cli, serveWithCli } from './helpers/cli.js';
import { tempDir, type TestServer } from './helpers/serve.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;
let stub: Server;
let stubUrl: string;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
  // A health endpoint that reports a version, as a server with /healthz does (no token asked).
  stub = createServer((req, res) => {
    if (req.url === '/healthz' && !req.headers.authorization) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', version: '9.8.7' }));
    } else res.writeHead(401).end();
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
});

test.after.always(async () => {
  await stop?.();
  await new Promise((resolve) => stub?.close(resolve));
});

test('pctl version: the client, and the server its health endpoint names', async (t) => {
  const r = await pctl(['version', '--api-url', stubUrl]);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, `Client: pctl ${version} (Node ${process.version})\nServer: pctl serve 9.8.7 at ${stubUrl}\n`);
  const json = await pctl(['version', '--api-url', stubUrl, '-o', 'json']);
  t.deepEqual(JSON.parse(json.stdout), { client: { version, node: process.version }, server: { url: stubUrl, version: '9.8.7' } });
});

test('pctl version against serve: what its /healthz says (or "not reported" where it has none)', async (t) => {
  const health = await fetch(`${srv.url}/healthz`);
  const body = (await health.json().catch(() => undefined)) as { version?: string } | undefined;
  const r = await pctl(['version']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.split('\n')[1], `Server: ${body?.version ? `pctl serve ${body.version}` : 'not reported'} at ${srv.url}`);
});

test('pctl version with no server, or no API URL at all: the client still, exit 0', async (t) => {
  const closed = await pctl(['version', '--api-url', 'http://127.0.0.1:1', '-o', 'yaml']);
  t.is(closed.code, 0, closed.stderr);
  t.deepEqual(YAML.parse(closed.stdout), { client: { version, node: process.version }, server: { url: 'http://127.0.0.1:1', problem: 'unreachable' } });
  const none = await cli({ PCTL_CONFIG_DIR: tempDir('pctl-version-') })(['version']);
  t.is(none.code, 0, none.stderr);
  t.is(none.stdout, `Client: pctl ${version} (Node ${process.version})\n`);
});

test('-o yml is -o yaml', async (t) => {
  const yml = await pctl(['groups', 'get', srv.organizationUid, '-o', 'yml']);
  const yaml = await pctl(['groups', 'get', srv.organizationUid, '-o', 'yaml']);
  t.is(yml.code, 0, yml.stderr);
  t.is(yml.stdout, yaml.stdout);
  t.is(YAML.parse(yml.stdout).uid, srv.organizationUid);
  const bad = await pctl(['groups', 'list', '-o', 'xml']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /option '-o, --output <format>' argument 'xml' is invalid\. Allowed choices are table, wide, json, yaml, ndjson, id, csv, tree\./);
});

test('-o tree draws groups only: elsewhere a usage error before any request, not a flat list', async (t) => {
  for (const argv of [['identities', 'list'], ['roles', 'list'], ['groups', 'get', srv.organizationUid], ['config', 'list']]) {
    const r = await pctl([...argv, '-o', 'tree']);
    t.is(r.code, 2, argv.join(' '));
    t.is(r.stdout, '');
    t.is(r.stderr, 'error: -o tree draws the group hierarchy: only pctl groups list has it; use -o table, json, yaml, ndjson, id or csv\n', argv.join(' '));
  }
  const groups = await pctl(['groups', 'ls', '-o', 'tree']);
  t.is(groups.code, 0, groups.stderr);
});
