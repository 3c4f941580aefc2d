// pctl groups create | update (list, get and delete are the registry's generic verbs).
import { defineCommand, flag } from '../../command.js';

const group = { live: 'groups' } as const;

export const createFlags = {
  parent: flag.required('--parent <group>', 'the parent group or organization (uid, name, name path or uid suffix)', { complete: group }),
  description: flag.string('--description <text>', 'description'),
};

export const updateFlags = {
  name: flag.string('--name <name>', 'new name'),
  description: flag.string('--description <text>', 'new description ("" clears it)'),
};

export const groupCommands = [
  defineCommand({
    name: 'create',
    args: [{ name: '<name>', description: 'group name' }],
    flags: createFlags,
    help: {
      summary: 'create a group',
      description: 'Create a group below a parent group or organization and print it. Siblings may share a name, as the API allows; a shared name is ambiguous as a reference, so give such a group by its uid.',
      examples: [
        ['a team below the organization', "pctl groups create platform --parent acme --description 'the platform team'"],
        ['keep just the new uid for a script', 'GROUP=$(pctl groups create web --parent platform -o id)'],
      ],
    },
    load: () => import('./create.js'),
  }),
  defineCommand({
    name: 'update',
    args: [{ name: '<group>', description: 'the group (uid, name, name path or uid suffix)', complete: group }],
    flags: updateFlags,
    help: {
      summary: 'change a group: only the fields given are sent',
      description: 'Change the name or description of a group. Only the fields given are sent (as the update mask).',
      examples: [
        ['rename a group', 'pctl groups update platform --name infra'],
        ['clear the description', "pctl groups update infra --description ''"],
      ],
    },
    load: () => import('./update.js'),
  }),
];
