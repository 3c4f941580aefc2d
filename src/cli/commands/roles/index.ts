// pctl roles list | get | create | update | delete: roles are addressed by uid or by name
// (`viewer`), so every verb is the noun's own.
import { defineCommand, defineList, flag } from '../../command.js';

const group = { live: 'groups' } as const;
const role = { live: 'roles' } as const;

export const listFlags = {
  capabilities: flag.bool('--capabilities', "show each role's capabilities"),
};

export const createFlags = {
  parent: flag.required('--parent <group>', "the group whose role bindings (and its descendants') may use the role (uid, name, name path or uid suffix)", { complete: group }),
  capability: flag.list('--capability <name>', 'a capability, e.g. groups.list (repeatable, or comma-separated)', { required: true }),
  description: flag.string('--description <text>', 'description'),
};

export const updateFlags = {
  name: flag.string('--name <name>', 'new name'),
  description: flag.string('--description <text>', 'new description ("" clears it)'),
  capability: flag.list('--capability <name>', 'the new set of capabilities (repeatable, or comma-separated; replaces the old set)'),
};

export const roleCommands = [
  defineList({
    flags: listFlags,
    help: {
      summary: 'list roles',
      description: 'List the roles that role bindings can grant.',
      examples: [
        ['every role', 'pctl roles list'],
        ['with their capabilities', 'pctl roles list --capabilities'],
        ['names only', "pctl roles list --jq '.[].name'"],
      ],
    },
    load: () => import('./list.js'),
  }),
  defineCommand({
    name: 'get',
    aliases: ['describe'],
    args: [{ name: '<role>', description: 'role uid or name', complete: role }],
    help: {
      summary: 'show a role',
      description: 'Show one role and its capabilities, by uid or by name.',
      examples: [['what a viewer may do', 'pctl roles get viewer -o yaml']],
    },
    load: () => import('./get.js'),
  }),
  defineCommand({
    name: 'create',
    args: [{ name: '<name>', description: 'role name' }],
    flags: createFlags,
    help: {
      summary: 'create a custom role on a group',
      description:
        'Create a custom role on a group: a name and a set of capabilities. Bindings on that group and below may use it. ' +
        'You can only give a role capabilities you hold on that group yourself.',
      examples: [
        ['a role that may list groups and identities', 'pctl roles create auditor --parent platform --capability groups.list,identity.list'],
        ['the same with repeated flags', 'pctl roles create auditor --parent platform --capability groups.list --capability identity.list'],
      ],
    },
    load: () => import('./create.js'),
  }),
  defineCommand({
    name: 'update',
    args: [{ name: '<role>', description: 'custom role uid or name', complete: role }],
    flags: updateFlags,
    help: {
      summary: 'change a custom role: only the fields given are sent',
      description: 'Change a custom role. Only the flags given are sent; --capability replaces the whole set. Built-in roles are read-only.',
      examples: [['let auditors see repos too', 'pctl roles update auditor --capability groups.list,identity.list,repo.list']],
    },
    load: () => import('./update.js'),
  }),
  defineCommand({
    name: 'delete',
    aliases: ['rm'],
    args: [{ name: '<role>', description: 'custom role uid or name', complete: role }],
    help: {
      summary: 'delete a custom role (it must not be bound)',
      description: 'Delete a custom role. It must not be bound: delete its role bindings first. Asks for confirmation on a terminal unless --yes.',
      examples: [['delete without asking', 'pctl roles delete auditor --yes']],
    },
    load: () => import('./delete.js'),
  }),
];
