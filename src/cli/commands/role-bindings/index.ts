// pctl role-bindings create (list, get and delete are the registry's generic verbs).
import { defineCommand, flag } from '../../command.js';

export const createFlags = {
  parent: flag.required('--parent <uid>', 'uid of the group the binding applies to', { complete: { live: 'groups' } }),
  identity: flag.required('--identity <uid>', 'uid of the identity', { complete: { live: 'identities' } }),
  role: flag.required('--role <role>', 'role uid or name (e.g. viewer)', { complete: { live: 'roles' } }),
};

export const roleBindingCommands = [
  defineCommand({
    name: 'create',
    flags: createFlags,
    help: {
      summary: 'bind a role to an identity in a group',
      description: 'Grant a role (by uid or name) to an identity within a group, and print the new binding.',
      examples: [
        ['make an identity an editor of a group', 'pctl role-bindings create --parent platform --identity "$IDENTITY_UID" --role editor'],
      ],
    },
    load: () => import('./create.js'),
  }),
];
