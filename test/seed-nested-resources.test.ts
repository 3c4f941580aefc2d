// Seeds carry identity providers, invites, account associations and webhook subscriptions under their group; export
// round-trips them without a client secret or an invite code (the code's hash travels instead,
// so a re-seeded invite still takes its code).
import test from 'ava';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { startTestServer } from './helpers/serve.js';
import type { SeedDocument } from '../src/server/data/seed.js';
import { exportSeed } from '../src/server/data/seed-export.js';

const CODE = 'pctl_invite_seeded-code-for-tests';
const seed: SeedDocument = {
  organizations: [{
    name: 'acme',
    roles: [{ name: 'auditor', capabilities: ['groups.list'] }],
    groups: [{
      name: 'platform',
      identityProviders: [{ name: 'okta', defaultRole: 'acme/auditor', oidc: { issuer: 'https://acme.okta.example', clientId: 'app', clientSecret: 'hush' } }],
      invites: [{ role: 'viewer', email: 'ana@example.com', expirationTime: '2099-01-01T00:00:00Z', singleUse: true, code: CODE }],
      accountAssociation: { name: 'prod', amazon: { account: '123456789012' } },
      subscriptions: [{ sink: 'https://hooks.example.com/pctl' }],
    }],
  }],
};

test('identity providers, invites and account associations load from a seed and export without secrets', async (t) => {
  const srv = await startTestServer({ seed });
  t.teardown(() => srv.dispose());
  const exported = exportSeed(srv.store);
  const platform = exported.organizations![0]!.groups![0]!;
  t.deepEqual(platform.identityProviders, [{ name: 'okta', defaultRole: 'auditor', oidc: {
    issuer: 'https://acme.okta.example', clientId: 'app', additionalScopes: [], groupsClaim: '', correlationRule: 'SUB_EQUALS_EXTERNAL_ID', pkceEnabled: false,
  } }]);
  t.deepEqual(platform.invites, [{
    role: 'viewer', email: 'ana@example.com', expirationTime: '2099-01-01T00:00:00.000Z', singleUse: true,
    codeSha256: createHash('sha256').update(CODE).digest('hex'),
  }]);
  t.deepEqual(platform.accountAssociation, { name: 'prod', amazon: { account: '123456789012' } });
  t.deepEqual(platform.subscriptions, [{ sink: 'https://hooks.example.com/pctl' }]);
  t.false(JSON.stringify(exported).includes('hush'));
  t.false(JSON.stringify(exported).includes(CODE));

  const again = await startTestServer({ seed: exported });
  t.teardown(() => again.dispose());
  t.deepEqual(exportSeed(again.store), exported);
  const invite = (await again.call('GET', '/iam/v2/groupInvites')).json.groupInvites[0];
  t.is(invite.keyId, createHash('sha256').update(CODE).digest('hex').slice(0, 16), 'the same code still finds it');
  t.deepEqual((await again.call('GET', '/events/v2/subscriptions')).json.subscriptions.map((s: { sink: string }) => s.sink), ['https://hooks.example.com/pctl']);
});

test('a bad nested entry is refused with its path, nothing written', async (t) => {
  const bad = structuredClone(seed);
  const platform = bad.organizations![0]!.groups![0]!;
  platform.identityProviders![0]!.defaultRole = 'nobody';
  platform.accountAssociation = { name: 'prod', amazon: { account: '1' } };
  const err = await t.throwsAsync(startTestServer({ seed: bad }));
  t.regex(err.message, /organizations\[0\]\.groups\[0\]\.(identityProviders\[0\]\.defaultRole|accountAssociation\.amazon\.account)/);
  const badSink = structuredClone(seed);
  badSink.organizations![0]!.groups![0]!.subscriptions = [{ sink: 'http://hooks.example.com/x' }];
  const sinkErr = await t.throwsAsync(startTestServer({ seed: badSink }));
  t.regex(sinkErr.message, /organizations\[0\]\.groups\[0\]\.subscriptions\[0\]\.sink/);
});

test('a verified group, an organization\'s kind and a static-keys identity load from a seed, show over REST and export the same', async (t) => {
  const issuerKeys = JSON.stringify({ keys: [generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' })] });
  const expirationTime = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const published: SeedDocument = {
    organizations: [{
      name: 'acme', verified: true, kind: 'ORG_KIND_DEV',
      groups: [{ name: 'secure', verified: true, identities: [{ name: 'keyed', staticKeys: { issuer: 'https://keys.example.com', subject: 'bot', issuerKeys, expirationTime } }] }],
    }],
  };
  const srv = await startTestServer({ seed: published });
  t.teardown(() => srv.dispose());
  const secure = (await srv.ok('GET', '/iam/v2/groups?name=secure')).groups[0];
  // The subgroup shows its organization's kind, inherited.
  t.like(secure, { verified: true, kind: 'ORG_KIND_DEV' });
  const keyed = (await srv.ok('GET', `/iam/v2/identities?uidp.children_of=${encodeURIComponent(secure.uid)}`)).identities[0];
  t.like(keyed, { name: 'keyed', staticKeys: { issuer: 'https://keys.example.com', subject: 'bot', issuerKeys, expirationTime } });
  const exported = exportSeed(srv.store);
  const acme = exported.organizations!.find((o) => o.name === 'acme')!;
  t.like(acme, { verified: true, kind: 'ORG_KIND_DEV' });
  t.deepEqual(acme.groups, published.organizations![0]!.groups);

  const bad = structuredClone(published);
  bad.organizations![0]!.groups![0]!.kind = 'ORG_KIND_DEV';
  const err = await t.throwsAsync(startTestServer({ seed: bad }));
  t.regex(err.message, /organizations\[0\]\.groups\[0\]\.kind: is inherited from the organization/);
});
