// `pctl serve --public-url`, and `--database` (and PCTL_DATABASE_URL) before any database is reached: a URL that
// is not PostgreSQL's is a usage error, one that cannot be reached a one-line start error
// that never shows the password. The PostgreSQL store itself is tested by the postgres leg.
import test from 'ava';
import { createServer } from 'node:net';
import { cli } from './helpers/cli.js';
import { request, startTestServer, tempDir } from './helpers/serve.js';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

test('--database takes postgres:// URLs only: anything else is exit 2 before anything starts', async (t) => {
  const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  for (const [url, why] of [['sqlite:///tmp/x.db', /must be a postgres:\/\/ URL, got sqlite:/], ['not a url', /must be a URL such as postgres:\/\//], ['', /database: must not be empty/]] as const) {
    const res = await pctl(['serve', '--port', '0', '--data', tempDir(), '--database', url]);
    t.is(res.code, 2, res.stderr);
    t.regex(res.stderr, why);
  }
});

test('a database that cannot be reached: exit 1, one line naming it with the password hidden', async (t) => {
  const url = `postgres://pctl:s3cret-pw@127.0.0.1:${await closedPort()}/pctl`;
  for (const [args, env] of [[['--database', url], {}], [[], { PCTL_DATABASE_URL: url }]] as const) {
    const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-'), ...env });
    const res = await pctl(['serve', '--port', '0', '--data', tempDir(), ...args]);
    t.is(res.code, 1, res.stderr);
    t.regex(res.stderr, /cannot use the database postgres:\/\/pctl:\*\*\*@127\.0\.0\.1:\d+\/pctl: .*ECONNREFUSED/);
    t.false(res.stderr.includes('s3cret-pw'), 'the password is never printed');
  }
});

test('--public-url takes an http(s) origin only: a path, a query or credentials are exit 2', async (t) => {
  const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  for (const url of ['ftp://x.example', 'https://x.example/api', 'https://u:p@x.example', 'nope']) {
    const res = await pctl(['serve', '--port', '0', '--data', tempDir(), '--public-url', url]);
    t.is(res.code, 2, `${url}: ${res.stderr}`);
    t.regex(res.stderr, /public-url/);
  }
});

test('--public-url on a serve of its own: the issuer is that URL from the first start, and moves with it', async (t) => {
  const dataDir = tempDir();
  const first = await startTestServer({ dataDir, publicUrl: 'https://one.example.test' });
  t.is((await request(first.url, 'GET', '/.well-known/openid-configuration')).json.issuer, 'https://one.example.test');
  t.is((await first.call('GET', '/iam/v2/groups')).status, 200);
  await first.close();
  const second = await startTestServer({ dataDir, publicUrl: 'https://two.example.test' });
  t.teardown(() => second.dispose());
  const owner = await second.ok('GET', `/iam/v2/identities/${encodeURIComponent(second.ownerIdentityUid)}`);
  t.is(owner.claimMatch.issuer, 'https://two.example.test', 'the owner identity follows the issuer');
  t.is((await second.call('GET', '/iam/v2/groups')).status, 200);
});
