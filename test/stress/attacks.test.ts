// The review's attacks, replayed with counts (seeded, bounded, 127.0.0.1 only): forged
// bearer tokens of every shape it tried (bypasses must be 0), and a subgroup owner probing
// outside its subtree (cross-scope disclosures must be 0). Neither may produce a 5xx.
import test from 'ava';
import { generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, startTestServer, type ApiResponse } from '../helpers/serve.js';

const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';
const SEED = Number(process.env.ATTACK_SEED ?? 20261122);

/** mulberry32: a small seeded generator, so a failing run can be replayed (ATTACK_SEED). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const b64 = (o: unknown) => Buffer.from(typeof o === 'string' ? o : JSON.stringify(o)).toString('base64url');

test('forged bearer tokens: every shape the review tried, none gets through, none is a 5xx', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const srv = await startTestServer({ clock: () => now * 1000 });
  t.teardown(() => srv.dispose());
  const jwk = JSON.parse(readFileSync(join(srv.dataDir, 'signing-key.jwk'), 'utf8')) as JWK;
  const own = await importJWK(jwk, 'ES256');
  const other = await generateKeyPair('ES256');
  const owner = JSON.parse(Buffer.from(srv.ownerToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown> & { sub: string };
  const base = { iss: srv.url, aud: 'pctl', sub: owner.sub, iat: now, exp: now + 600 };
  const signOwn = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: jwk.kid! }).sign(own);
  const [h, p, s] = srv.ownerToken.split('.');

  const shapes: [string, () => Promise<string>][] = [
    ['alg none', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(base)}.`],
    ['HS256 keyed with the public key', async () => new SignJWT(base).setProtectedHeader({ alg: 'HS256', kid: jwk.kid! }).sign(new TextEncoder().encode(JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y })))],
    ['another key, our kid', async () => new SignJWT(base).setProtectedHeader({ alg: 'ES256', kid: jwk.kid! }).sign(other.privateKey)],
    ['another key, no kid', async () => new SignJWT(base).setProtectedHeader({ alg: 'ES256' }).sign(other.privateKey)],
    ['sub as an array', () => signOwn({ ...base, sub: [owner.sub] })],
    ['sub as a number', () => signOwn({ ...base, sub: 1 })],
    ['sub empty', () => signOwn({ ...base, sub: '' })],
    ['exp 1e308', () => signOwn({ ...base, exp: 1e308 })],
    ['exp as a string', () => signOwn({ ...base, exp: String(now + 600) })],
    ['iat a day ahead', () => signOwn({ ...base, iat: now + 86400, exp: now + 86400 + 600 })],
    ['expired', () => signOwn({ ...base, iat: now - 7200, exp: now - 3600 })],
    ['nbf ahead', () => signOwn({ ...base, nbf: now + 3600 })],
    ['wrong audience', () => signOwn({ ...base, aud: 'someone-else' })],
    ['another issuer', () => signOwn({ ...base, iss: 'https://evil.example' })],
    ['tampered payload', async () => `${h}.${b64({ ...owner, sub: `${String(owner.sub)}x` })}.${s}`],
    ['payload swapped, signature kept', async () => `${h}.${b64({ ...owner, exp: now + 10 * 365 * 86400 })}.${s}`],
    ['signature truncated', async () => `${h}.${p}.${s!.slice(0, -4)}`],
    ['four segments', async () => `${srv.ownerToken}.x`],
    ['payload not JSON', async () => `${h}.${b64('not json')}.${s}`],
    ['header not JSON', async () => `${b64('{')}.${p}.${s}`],
  ];
  const rnd = random(SEED);
  const tally: Record<string, number> = {};
  let bypasses = 0;
  let fiveXX = 0;
  const ROUNDS = 400;
  for (let i = 0; i < ROUNDS; i++) {
    const [name, make] = shapes[Math.floor(rnd() * shapes.length)]!;
    const path = rnd() < 0.5 ? G : `${G}/${srv.organizationUid}`;
    const res = await request(srv.url, 'GET', path, undefined, { authorization: `Bearer ${await make()}` });
    tally[`${name} → ${res.status}`] = (tally[`${name} → ${res.status}`] ?? 0) + 1;
    if (res.status < 400) bypasses++;
    if (res.status >= 500) fiveXX++;
  }
  t.log(`seed ${SEED}: ${ROUNDS} forged tokens of ${shapes.length} shapes; bypasses ${bypasses}, 5xx ${fiveXX}`);
  t.is(bypasses, 0, JSON.stringify(tally));
  t.is(fiveXX, 0, JSON.stringify(tally));
  t.is((await srv.call('GET', G)).status, 200, 'the real owner token still works');
});

test('a subgroup owner probing outside its subtree learns nothing, writes nothing, gets no 5xx', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const ok = async (res: Promise<ApiResponse>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`setup: ${r.status} ${r.text}`);
    return r.json;
  };
  const org = srv.organizationUid;
  const ownerRole = (await ok(srv.call('GET', '/iam/v2/roles?name=owner'))).roles[0].uid as string;
  const viewerRole = (await ok(srv.call('GET', '/iam/v2/roles?name=viewer'))).roles[0].uid as string;
  const mine = await ok(srv.call('POST', G, { parent: org, group: { name: 'team-a' } }));
  const theirs = await ok(srv.call('POST', G, { parent: org, group: { name: 'team-b' } }));
  const secret = await ok(srv.call('POST', G, { parent: theirs.uid, group: { name: 'secret-group-name', description: 'secret-group-desc' } }));
  const victim = await ok(srv.call('POST', I, {
    parent: theirs.uid,
    identity: { name: 'victim-secret-name', description: 'victim-secret-desc', claimMatch: { issuer: 'https://idp.example', subject: 'victim@secret' } },
  }));
  await ok(srv.call('POST', RB, { parent: theirs.uid, roleBinding: { identityUid: victim.uid, roleUid: viewerRole } }));
  const mallory = await ok(srv.call('POST', I, { parent: mine.uid, identity: { name: 'mallory', claimMatch: { issuer: srv.url, subject: 'mallory' } } }));
  await ok(srv.call('POST', RB, { parent: mine.uid, roleBinding: { identityUid: mallory.uid, roleUid: ownerRole } }));
  const token = await srv.issueToken(mallory.uid);
  const as = (method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${token}` });

  // What must never reach mallory (beyond uids it sent itself).
  const secrets = ['victim-secret-name', 'victim-secret-desc', 'victim@secret', 'secret-group-name', 'secret-group-desc'];
  const probes: [string, () => Promise<ApiResponse>, string[]][] = [
    ['get the victim', () => as('GET', `${I}/${victim.uid}`), []],
    ['get the secret group', () => as('GET', `${G}/${secret.uid}`), []],
    ['list groups', () => as('GET', `${G}?page_size=200`), [theirs.uid, secret.uid]],
    ['list identities', () => as('GET', `${I}?page_size=200`), [victim.uid]],
    ['list role bindings', () => as('GET', `${RB}?page_size=200`), [victim.uid]],
    ['list below their team', () => as('GET', `${G}?uidp.descendants_of=${theirs.uid}`), [secret.uid]],
    ['list by the secret name', () => as('GET', `${G}?name=secret-group-name`), [secret.uid]],
    ['take the victim claimMatch', () => as('POST', I, { parent: mine.uid, identity: { name: 'copy', claimMatch: { issuer: 'https://idp.example', subject: 'victim@secret' } } }), [victim.uid]],
    ['bind the victim', () => as('POST', RB, { parent: mine.uid, roleBinding: { identityUid: victim.uid, roleUid: viewerRole } }), []],
    ['rename the secret group', () => as('PATCH', `${G}/${secret.uid}`, { name: 'pwned' }), []],
    ['delete the victim', () => as('DELETE', `${I}/${victim.uid}`), []],
    ['create under their team', () => as('POST', G, { parent: theirs.uid, group: { name: 'implant' } }), []],
  ];
  const rnd = random(SEED + 1);
  let disclosures = 0;
  let writes = 0;
  let fiveXX = 0;
  const seen: string[] = [];
  const ROUNDS = 300;
  for (let i = 0; i < ROUNDS; i++) {
    const [name, probe, alsoSecret] = probes[Math.floor(rnd() * probes.length)]!;
    const res = await probe();
    const leaked = [...secrets, ...alsoSecret].filter((x) => res.text.includes(x));
    if (leaked.length) {
      disclosures++;
      seen.push(`${name}: ${res.status} leaked ${leaked.join(', ')}`);
    }
    if (res.status >= 500) fiveXX++;
    if (res.status < 400 && !name.startsWith('list')) writes++;
  }
  t.log(`seed ${SEED + 1}: ${ROUNDS} probes of ${probes.length} kinds; cross-scope disclosures ${disclosures}, writes let through ${writes}, 5xx ${fiveXX}`);
  t.deepEqual([...new Set(seen)], []);
  t.is(writes, 0);
  t.is(fiveXX, 0);
  const after = await ok(srv.call('GET', `${G}/${secret.uid}`));
  t.is(after.name, 'secret-group-name', 'nothing was changed');
  t.is((await srv.call('GET', `${I}/${victim.uid}`)).status, 200);
});
