// Seeds carry identity providers, invites, account associations and webhook subscriptions under their group; export
// round-trips them without a client secret or an invite code (the code's hash travels instead,
// so a re-seeded invite still takes its code).
import test from 'ava';
import { createHash } from 'node:crypto';
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
