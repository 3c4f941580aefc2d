// serve behind the proxies docs/serve.md ("Behind a proxy") names, each run from its Debian
// package as this test's own process on 127.0.0.1 with the configuration the docs show:
// nginx (proxy_pass for REST, grpc_pass for gRPC) and haproxy (HTTP/1.1 in, HTTP/2 to serve;
// HTTP/2 in and out). Through each: a REST GET, a gRPC call by @grpc/grpc-js, and a GET that
// carries `Upgrade: h2c` as `curl --http2` sends it (haproxy 2.6 makes an extended CONNECT of
// it: with the docs' del-header lines it is answered, without them serve's 400 says why).
import test, { type ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import grpc from '@grpc/grpc-js';
import loader from '@grpc/proto-loader';
import { request, startTestServer, tempDir, type TestServer } from './helpers/serve.js';
import { testNeeding } from './helpers/tools.js';

// Debian puts both in /usr/sbin, which a non-root PATH may lack.
process.env.PATH = `${process.env.PATH ?? ''}:/usr/sbin:/sbin`;

/** How long a proxy may take to listen, and a call to be answered (guards, never synchronization). */
const GUARD_MS = 15_000;

const definitions = loader.loadSync(['chainguard/platform/iam/v2/groups.proto'], { includeDirs: [join(import.meta.dirname, '..', 'proto')], longs: String, enums: String, defaults: false });
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- grpc-js builds the service constructors at run time from proto/: no static types
const GroupsService = (grpc.loadPackageDefinition(definitions) as any).chainguard.platform.iam.v2.GroupsService;

let srv: TestServer;
test.before(async () => {
  srv = await startTestServer();
});
test.after.always(async () => {
  await srv?.dispose();
});

/** A port nothing listens on now (the kernel's pick, released for the proxy to take). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts connections on `port`; rejects when the process exits first or after GUARD_MS. */
async function listening(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + GUARD_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the proxy exited (${child.exitCode}): ${output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${GUARD_MS} ms: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs a proxy in the foreground until the test ends; resolves once each of its ports listens. */
async function runProxy(t: ExecutionContext, cmd: string, args: string[], ports: number[]): Promise<void> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  t.teardown(() => new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  }));
  for (const port of ports) await listening(port, child, () => output);
}

/** GetGroup of the organization over gRPC (grpc-js, h2c) at `address`: the uid answered, or the call's error. */
function getGroup(address: string): Promise<string> {
  const client = new GroupsService(address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${srv.ownerToken}`);
  return new Promise<string>((resolve, reject) => {
    client.GetGroup({ uid: srv.organizationUid }, metadata, { deadline: Date.now() + GUARD_MS }, (err: Error | null, res: { uid: string }) => {
      client.close();
      if (err) reject(err);
      else resolve(res.uid);
    });
  });
}

const auth = () => ({ authorization: `Bearer ${srv.ownerToken}` });
/** The headers `curl --http2 http://…` adds to a request: an offer to upgrade to h2c. */
const UPGRADE = { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQCAAAAAAIAAAAA' };

testNeeding(['nginx'], 'behind nginx: REST by proxy_pass, gRPC by grpc_pass, and a GET offering Upgrade: h2c is answered', async (t) => {
  const dir = tempDir('pctl-nginx-');
  const [rest, rpc] = [await freePort(), await freePort()];
  const conf = join(dir, 'nginx.conf');
  // docs/serve.md's two server blocks, and what running as a test's process needs (no daemon,
  // no master, every file in the temp dir).
  writeFileSync(conf, `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${rest};
    location / {
      proxy_pass http://127.0.0.1:${srv.port};
      proxy_http_version 1.1;
    }
  }
  server {
    listen 127.0.0.1:${rpc} http2;
    location / {
      grpc_pass grpc://127.0.0.1:${srv.port};
    }
  }
}
`);
  await runProxy(t, 'nginx', ['-p', dir, '-e', join(dir, 'error.log'), '-c', conf], [rest, rpc]);
  const base = `http://127.0.0.1:${rest}`;
  const got = await request(base, 'GET', `/iam/v2/groups/${srv.organizationUid}`, undefined, auth());
  t.is(got.status, 200, got.text);
  t.is(got.json.uid, srv.organizationUid);
  const upgraded = await request(base, 'GET', `/iam/v2/groups/${srv.organizationUid}`, undefined, { ...auth(), ...UPGRADE });
  t.is(upgraded.status, 200, upgraded.text);
  t.is(upgraded.json.uid, srv.organizationUid);
  t.is(await getGroup(`127.0.0.1:${rpc}`), srv.organizationUid);
});

testNeeding(['haproxy'], 'behind haproxy: HTTP/1.1 in and HTTP/2 to serve, HTTP/2 in and out (gRPC); a GET offering Upgrade: h2c is answered with the docs\' lines, and refused with the reason (not a 502) without them', async (t) => {
  const dir = tempDir('pctl-haproxy-');
  const [h1, h2, bare] = [await freePort(), await freePort(), await freePort()];
  const conf = join(dir, 'haproxy.cfg');
  // docs/serve.md's backend; `bare` is the same backend without the del-header lines.
  writeFileSync(conf, `defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend rest
  bind 127.0.0.1:${h1}
  default_backend serve
frontend grpc
  bind 127.0.0.1:${h2} proto h2
  default_backend serve
frontend without_del_header
  bind 127.0.0.1:${bare}
  default_backend serve_bare
backend serve
  http-request del-header upgrade
  http-request del-header connection
  server serve 127.0.0.1:${srv.port} proto h2
backend serve_bare
  server serve 127.0.0.1:${srv.port} proto h2
`);
  await runProxy(t, 'haproxy', ['-db', '-f', conf], [h1, h2, bare]);
  const path = `/iam/v2/groups/${srv.organizationUid}`;
  const got = await request(`http://127.0.0.1:${h1}`, 'GET', path, undefined, auth());
  t.is(got.status, 200, got.text);
  t.is(got.json.uid, srv.organizationUid);
  const upgraded = await request(`http://127.0.0.1:${h1}`, 'GET', path, undefined, { ...auth(), ...UPGRADE });
  t.is(upgraded.status, 200, upgraded.text);
  t.is(upgraded.json.uid, srv.organizationUid);
  t.is(await getGroup(`127.0.0.1:${h2}`), srv.organizationUid);
  // Without them haproxy 2.6 sends the Upgrade on as an extended CONNECT: serve's 400 says what
  // to change, and the connection haproxy shares between its clients goes on.
  const refused = await request(`http://127.0.0.1:${bare}`, 'GET', path, undefined, { ...auth(), ...UPGRADE });
  t.is(refused.status, 400, refused.text);
  t.like(refused.json, { code: 3, details: [{ reason: 'UPGRADE_NOT_SUPPORTED' }] });
  t.regex(refused.json.message, /Upgrade.*del-header upgrade/);
  const plain = await request(`http://127.0.0.1:${bare}`, 'GET', path, undefined, auth());
  t.is(plain.status, 200, plain.text);
});
