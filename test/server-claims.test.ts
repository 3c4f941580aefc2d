// Claims are checked even when the signature is good (a leaked or careless signer): sub is a
// string, iat is not in the future, the lifetime is bounded. The owner token lives 30 days
// by default, `--owner-token-ttl` sets it, and a longer one left by an older serve is replaced.
import test from 'ava';
import { importJWK, SignJWT } from 'jose';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from './helpers/cli.js';
import { request, signingJwk, startTestServer, storeUnderTest, tempDir } from './helpers/serve.js';

const G = '/iam/v2/groups';
const DAY = 86400;

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number; sub: string };

test('a token signed with serve\'s own key is refused when its claims are out of bounds', async (t) => {
  const now = Math.floor(Date.parse('2026-11-22T12:00:00Z') / 1000);
  const srv = await startTestServer({ clock: () => now * 1000 });
  t.teardown(() => srv.dispose());
  const jwk = signingJwk(srv);
  const key = await importJWK(jwk, 'ES256');
  const ownerSub = claimsOf(srv.ownerToken).sub;
  const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: jwk.kid! }).sign(key);
  const base = { iss: srv.url, aud: 'pctl', sub: ownerSub, iat: now, exp: now + 600 };
  const call = async (claims: Record<string, unknown>) => request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${await sign(claims)}` });

  t.is((await call(base)).status, 200, 'the control: a well-formed token of the owner');
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['an array sub', { ...base, sub: [ownerSub] }, /sub claim is not a non-empty string/],
    ['an empty sub', { ...base, sub: '' }, /sub/],
    ['exp 1e308', { ...base, exp: 1e308 }, /lives longer than this server accepts \(90 days at most\)/],
    ['a lifetime of 91 days', { ...base, exp: now + 91 * DAY }, /lives longer/],
    ['iat a day ahead', { ...base, iat: now + DAY, exp: now + DAY + 600 }, /not valid yet/],
    ['iat not a number', { ...base, iat: 'now' }, /iat|not valid yet/],
  ];
  for (const [what, claims, message] of refused) {
    const res = await call(claims);
    t.is(res.status, 401, what);
    t.is(res.json.code, 16, what);
    t.regex(res.json.message, message, what);
  }
  t.is((await call({ ...base, iat: now + 60, exp: now + 600 })).status, 200, 'a minute of clock skew is tolerated');
});

test('the owner token lives 30 days; --owner-token-ttl sets it; a longer one from an older serve is replaced', async (t) => {
  const dir = tempDir();
  const first = await startTestServer({ dataDir: dir });
  const c = claimsOf(first.ownerToken);
  t.is(c.exp - c.iat, 30 * DAY);
  await first.close();

  const short = await startTestServer({ dataDir: dir, ownerTokenTtlSeconds: 7 * DAY });
  const s = claimsOf(short.ownerToken);
  t.is(s.exp - s.iat, 7 * DAY, 'a 30-day token is longer than the 7 days asked for: minted again');
  t.is(readFileSync(join(dir, 'owner.token'), 'utf8').trim(), short.ownerToken);
  await short.close();

  // A year-long owner token (what serve used to write) no longer verifies: replaced at start.
  writeFileSync(join(dir, 'owner.token'), 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJvd25lciJ9.c2ln\n');
  const again = await startTestServer({ dataDir: dir });
  t.teardown(() => again.dispose());
  t.not(again.ownerToken, short.ownerToken);
  t.is((await again.call('GET', G)).status, 200);
});

test('serve token --ttl and serve --owner-token-ttl refuse more than 90 days (exit 2)', async (t) => {
  const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const token = await pctl(['serve', 'token', '--identity', 'x', '--ttl', '91d', '--data', tempDir()]);
  t.is(token.code, 2);
  t.regex(token.stderr, /ttl: must be at most 90d/);
  const serve = await pctl(['serve', '--owner-token-ttl', '1y', '--port', '0', '--data', tempDir()]);
  t.is(serve.code, 2);
  t.regex(serve.stderr, /owner-token-ttl: must be a duration/);
});

// SQLite only: pctl serve token reads the signing key from the data dir.
if (storeUnderTest === 'sqlite') test('serve token without --identity mints a fresh owner token, e.g. once owner.token has expired', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  // The issuer is serve's URL, so the token is minted from the data dir of the running serve.
  const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const minted = await pctl(['serve', 'token', '--ttl', '2h', '--data', srv.dataDir]);
  t.is(minted.code, 0, minted.stderr);
  const token = minted.stdout.trim();
  const c = claimsOf(token);
  t.is(c.exp - c.iat, 2 * 3600);
  t.is(c.sub, claimsOf(srv.ownerToken).sub, 'the owner');
  t.not(token, srv.ownerToken);
  t.is((await request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${token}` })).status, 200);
});
