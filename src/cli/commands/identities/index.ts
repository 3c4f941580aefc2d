// pctl identities create | update (list, get and delete are the registry's generic verbs).
import { defineCommand, flag } from '../../command.js';

const group = { live: 'groups' } as const;
const GITHUB = "--issuer https://token.actions.githubusercontent.com --subject 'repo:acme/app:ref:refs/heads/main'";

export const createFlags = {
  parent: flag.required('--parent <group>', 'the group the identity belongs to (uid, name, name path or uid suffix)', { complete: group }),
  issuer: flag.required('--issuer <url>', 'token issuer URL'),
  subject: flag.required('--subject <subject>', 'the exact subject claim to match'),
  description: flag.string('--description <text>', 'description'),
};

export const updateFlags = {
  name: flag.string('--name <name>', 'new name'),
  description: flag.string('--description <text>', 'new description ("" clears it)'),
  issuer: flag.string('--issuer <url>', 'new token issuer URL'),
  subject: flag.string('--subject <subject>', 'new subject claim'),
};

export const identityCommands = [
  defineCommand({
    name: 'create',
    args: [{ name: '<name>', description: 'identity name' }],
    flags: createFlags,
    help: {
      summary: 'create an identity',
      description:
        'Create an identity in a group. A token whose issuer and subject claims equal --issuer and --subject is accepted as this identity.',
      examples: [['a CI identity', `pctl identities create deployer --parent platform ${GITHUB}`]],
    },
    load: () => import('./create.js'),
  }),
  defineCommand({
    name: 'update',
    args: [{ name: '<identity>', description: 'the identity (uid, name or uid suffix)', complete: { live: 'identities' } }],
    flags: updateFlags,
    help: {
      summary: 'change an identity: only the fields given are sent',
      description: 'Change the name, description, issuer or subject of an identity. Only the fields given are sent.',
      examples: [['match another branch', "pctl identities update \"$IDENTITY_UID\" --subject 'repo:acme/app:ref:refs/heads/release'"]],
    },
    load: () => import('./update.js'),
  }),
];
