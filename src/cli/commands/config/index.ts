// pctl config list | get | set | use | delete: profiles (an API URL and a token each).
import { defineCommand, defineGroup, flag } from '../../command.js';

const profile = { live: 'profile' } as const;

export const getFlags = {
  showToken: flag.bool('--show-token', 'print the token instead of ***'),
};

export const configCommand = defineGroup(
  'config',
  {
    summary: 'manage profiles (API URL and token) in PCTL_CONFIG_DIR',
    description: 'Profiles hold an API URL and a token. They are saved in PCTL_CONFIG_DIR; one of them is the current profile.',
    examples: [
      ['list the profiles', 'pctl config list'],
      ['add a profile and make it current', 'pctl config set prod api-url https://api.example.com && pctl config use prod'],
    ],
  },
  [
    defineCommand({
      name: 'list',
      aliases: ['ls'],
      help: {
        summary: 'list profiles; * marks the current one',
        description: 'List the profiles and their API URLs; * marks the current one.',
        examples: [['list the profiles', 'pctl config list']],
      },
      load: () => import('./list.js'),
    }),
    defineCommand({
      name: 'get',
      aliases: ['describe'],
      args: [
        { name: '[name]', description: 'profile (default: the current one)', complete: profile },
        { name: '[key]', description: 'api-url or token: print just that value' },
      ],
      flags: getFlags,
      help: {
        summary: 'show a profile or one of its values',
        description:
          'Show a profile (by default the current one), or just one of its values. The token is shown as *** unless --show-token is given.',
        examples: [
          ['the current profile', 'pctl config get'],
          ['just the API URL of a profile', 'pctl config get local api-url'],
        ],
      },
      load: () => import('./get.js'),
    }),
    defineCommand({
      name: 'set',
      args: [
        { name: '<name>', description: 'profile', complete: profile },
        { name: '[key]', description: 'api-url or token (or give --api-url URL instead)' },
        { name: '[value]', description: 'the value (token: read from stdin)' },
      ],
      help: {
        summary: 'set a profile value, creating the profile; the token is read from stdin so that it stays out of shell history',
        description:
          'Set the api-url or token of a profile, creating the profile if needed. A token is read from stdin (not from the ' +
          'command line) so that it stays out of shell history.',
        examples: [
          ['point a profile at an API', 'pctl config set prod api-url https://api.example.com'],
          ['the same, flag style', 'pctl config set prod --api-url https://api.example.com'],
          ['save a token from a file', 'pctl config set prod token < token.txt'],
        ],
      },
      load: () => import('./set.js'),
    }),
    defineCommand({
      name: 'use',
      args: [{ name: '<name>', description: 'profile', complete: profile }],
      help: {
        summary: 'make a profile the current one',
        description: 'Make a profile the current one: commands use it when neither --profile nor PCTL_PROFILE is given.',
        examples: [['switch to the local serve', 'pctl config use local']],
      },
      load: () => import('./use.js'),
    }),
    defineCommand({
      name: 'delete',
      aliases: ['rm'],
      args: [{ name: '<name>', description: 'profile', complete: profile }],
      help: {
        summary: 'delete a profile',
        description: 'Delete a profile, with its token.',
        examples: [['delete a profile', 'pctl config delete old']],
      },
      load: () => import('./delete.js'),
    }),
  ],
);
