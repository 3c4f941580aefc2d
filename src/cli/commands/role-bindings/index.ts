// pctl role-bindings create (list, get and delete are the registry's generic verbs).
import { defineCommand, flag } from '../../command.js';

export const createFlags = {
  parent: flag.required('--parent <group>', 'the group the binding applies to (uid, name, name path or uid suffix)', { complete: { live: 'groups' } }),
  identity: flag.required('--identity <identity>', 'the identity (uid, name or uid suffix)', { complete: { live: 'identities' } }),
  role: flag.required('--role <role>', 'role: uid, name (e.g. viewer) or uid suffix', { complete: { live: 'roles' } }),
};

export const roleBindingCommands = [
  defineCommand({
    name: 'create',
    flags: createFlags,
    help: {
      summary: 'bind a role to an identity in a group',
      description: 'Grant a role (by uid, name or uid suffix) to an identity (by uid, name or uid suffix) within a group (also by name path), and print the new binding.',
      examples: [
        ['make an identity an editor of a group', 'pctl role-bindings create --parent platform --identity ci-bot --role editor'],
      ],
    },
    load: () => import('./create.js'),
  }),
];
