// pctl identity-providers create | update (list, get and delete are the registry's generic
// verbs). The client secret never comes from a flag value: --client-secret reads it from a
// prompt on a terminal, or from stdin.
import { defineCommand, flag } from '../../command.js';

const oidcFlags = {
  scope: flag.list('--scope <scope>', 'an additional OIDC scope to request (repeatable; on update, replaces the set)'),
  groupsClaim: flag.string('--groups-claim <claim>', 'the token claim that lists the user\'s groups'),
  clientSecret: flag.bool('--client-secret', 'read the client secret from a prompt (or stdin when it is not a terminal); never shown again'),
};

export const createFlags = {
  parent: flag.required('--parent <group>', 'the group whose members sign in through it (uid, name, name path or uid suffix)', { complete: { live: 'groups' } }),
  issuer: flag.required('--issuer <url>', 'the OIDC issuer URL (https)'),
  clientId: flag.required('--client-id <id>', 'the OIDC client id'),
  defaultRole: flag.required('--default-role <role>', 'the role first-time users get: a uid, a name (e.g. viewer) or a uid suffix', { complete: { live: 'roles' } }),
  correlationRule: { ...flag.string('--correlation-rule <rule>', 'how users are matched, fixed after create: sub or oid (default sub)'), choices: ['sub', 'oid'] },
  description: flag.string('--description <text>', 'description'),
  pkce: flag.bool('--pkce', 'use PKCE in the sign-in flow'),
  ...oidcFlags,
};

export const updateFlags = {
  name: flag.string('--name <name>', 'new name'),
  description: flag.string('--description <text>', 'new description ("" clears it)'),
  issuer: flag.string('--issuer <url>', 'new OIDC issuer URL'),
  clientId: flag.string('--client-id <id>', 'new OIDC client id'),
  defaultRole: flag.string('--default-role <role>', 'new default role: a uid, a name or a uid suffix', { complete: { live: 'roles' } }),
  pkce: { ...flag.string('--pkce <on|off>', 'use PKCE in the sign-in flow, or not'), choices: ['on', 'off'] },
  ...oidcFlags,
};

export const identityProviderCommands = [
  defineCommand({
    name: 'create',
    args: [{ name: '<name>', description: 'identity provider name' }],
    flags: createFlags,
    help: {
      summary: 'add an OIDC identity provider to a group',
      description:
        'Add an OIDC sign-in source for the members of a group. With --client-secret the secret is read from a prompt (or ' +
        'stdin), never from the command line; no response ever returns it.',
      examples: [
        ['Okta for the platform group', 'pctl identity-providers create okta --parent platform --issuer https://acme.okta.com --client-id 0oa1 --default-role viewer --client-secret < secret.txt'],
      ],
    },
    load: () => import('./create.js'),
  }),
  defineCommand({
    name: 'update',
    args: [{ name: '<provider>', description: 'identity provider uid or name', complete: { live: 'identityProviders' } }],
    flags: updateFlags,
    help: {
      summary: 'change an identity provider: only the fields given are sent',
      description: 'Change an identity provider. Only the flags given are sent (as the update mask); --client-secret rotates the secret. The correlation rule cannot change.',
      examples: [['rotate the client secret', 'pctl identity-providers update okta --client-secret']],
    },
    load: () => import('./update.js'),
  }),
];
