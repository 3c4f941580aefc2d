// pctl repos update (list and get are the registry's generic verbs).
import { defineCommand, flag } from '../../command.js';

export const updateFlags = {
  name: flag.string('--name <name>', 'new name'),
  description: flag.string('--description <text>', 'new description ("" clears it)'),
};

export const repoCommands = [
  defineCommand({
    name: 'update',
    args: [{ name: '<repo>', description: 'the repo (uid, name or uid suffix)', complete: { live: 'repos' } }],
    flags: updateFlags,
    help: {
      summary: 'change a repo: only the fields given are sent',
      description: 'Change the name or description of a repo. Only the fields given are sent.',
      examples: [['describe a repo', "pctl repos update nginx --description 'web server images'"]],
    },
    load: () => import('./update.js'),
  }),
];
