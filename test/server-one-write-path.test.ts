// One write path: a role binding is made by one domain step, whoever asks. The API route, an
// invite being redeemed and a seed refuse the same bindings, except for the one documented
// difference: an invite grants its role on its creator's authority, so the redeemer needs
// neither to hold the role nor to see it, and redeeming again returns the binding it made.
import test from 'ava';
import { startServer } from '../src/server/index.js';
import { SeedValidationError, type SeedDocument } from '../src/server/data/seed.js';
import { startTestServer, tempDir } from './helpers/serve.js';
import { rmSync } from 'node:fs';

const G = '/iam/v2/groups';
const RL = '/iam/v2/roles';
const RB = '/iam/v2/roleBindings';
const INV = '/iam/v2/groupInvites';
const IDP = '/iam/v2/identityProviders';

test('a role defined on another group: the route refuses to bind it (code 3 on roleUid), and so does a seed, naming the entry', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const a = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'a' } });
  const b = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'b' } });
  const role = await srv.ok('POST', RL, { parent: a.uid, role: { name: 'reader', capabilities: ['groups.list'] } });
  const refused = await srv.call('POST', RB, { parent: b.uid, roleBinding: { identityUid: srv.ownerIdentityUid, roleUid: role.uid } });
  t.is(refused.status, 400);
  t.deepEqual(refused.json.details.find((d: { fieldViolations?: unknown }) => d.fieldViolations).fieldViolations.map((v: { field: string }) => v.field), ['roleUid']);

  const seed: SeedDocument = {
    organizations: [{
      name: 'acme',
      groups: [
        { name: 'a', roles: [{ name: 'reader', capabilities: ['groups.list'] }] },
        {
          name: 'b',
          identities: [{ name: 'x', claimMatch: { issuer: 'https://ci.example', subject: 'x' } }],
          roleBindings: [{ identity: 'x', role: 'acme/a/reader' }],
          identityProviders: [{ name: 'sso', defaultRole: 'acme/a/reader', oidc: { issuer: 'https://sso.example', clientId: 'pctl' } }],
        },
      ],
    }],
  };
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const err = await t.throwsAsync(startServer({ dataDir: dir, port: 0, seed }), { instanceOf: SeedValidationError });
  // Identity providers load before bindings: the first refusal is the provider's default role, as the API answers it.
  t.deepEqual(err.violations.map((v) => v.field), ['organizations[0].groups[1].identityProviders[0].defaultRole']);
  t.regex(err.violations[0]!.description, /can only be used there or below/);

  const withoutProvider = structuredClone(seed);
  delete withoutProvider.organizations![0]!.groups![1]!.identityProviders;
  const again = await t.throwsAsync(startServer({ dataDir: dir, port: 0, seed: withoutProvider }), { instanceOf: SeedValidationError });
  t.deepEqual(again.violations.map((v) => v.field), ['organizations[0].groups[1].roleBindings[0].roleUid']);
  t.regex(again.violations[0]!.description, /can only be bound there or below/);

  const route = await srv.call('POST', IDP, { parent: b.uid, identityProvider: { name: 'sso', defaultRole: role.uid, oidc: { issuer: 'https://sso.example', clientId: 'pctl' } } });
  t.is(route.status, 400);
  t.regex(route.text, /can only be used there or below/);
});

test('an invite binds a role its redeemer does not hold; the route refuses that redeemer the same binding; a second redeem returns the first binding', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const team = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'team' } });
  const editor = await srv.roleUid('editor');
  const { code } = await srv.ok('POST', INV, { parent: team.uid, groupInvite: { roleUid: editor, ttl: '3600s' } });
  // A viewer of the team: it may not bind anyone (no role_bindings.create), let alone as editor.
  const x = await srv.person('x', 'viewer', team.uid);

  const byRoute = await x.as('POST', RB, { parent: team.uid, roleBinding: { identityUid: x.id.uid, roleUid: editor } });
  t.is(byRoute.status, 403);

  const redeemed = await x.as('POST', `${INV}:redeem`, { code });
  t.is(redeemed.status, 200);
  t.is(redeemed.json.role.name, 'editor');
  t.is(redeemed.json.identity.uid, x.id.uid);

  const twice = await x.as('POST', `${INV}:redeem`, { code });
  t.is(twice.status, 200);
  t.is(twice.json.uid, redeemed.json.uid);

  // On the caller's authority the same binding is a duplicate.
  const duplicate = await srv.call('POST', RB, { parent: team.uid, roleBinding: { identityUid: x.id.uid, roleUid: editor } });
  t.is(duplicate.status, 409);
  t.is(duplicate.json.code, 6);
});
