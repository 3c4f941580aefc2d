// pctl libraries list | versions | count: the Ecosystems catalogue (read-only).
import { defineCommand, defineList, flag } from '../../command.js';

const ecosystem = flag.list('--ecosystem <ecosystem>', 'java or python (repeatable; default both)');

export const listFlags = {
  ecosystem,
  query: flag.string('--query <text>', 'only libraries whose name contains this (any case)'),
};

export const libraryCommands = [
  defineList({
    flags: listFlags,
    help: {
      summary: 'list libraries',
      description: 'List the libraries of one or both ecosystems, every page; --query keeps those whose name contains the text.',
      examples: [
        ['every Python library', 'pctl libraries list --ecosystem python'],
        ['Java libraries about jackson, as JSON', 'pctl libraries list --ecosystem java --query jackson -o json'],
      ],
    },
    load: () => import('./list.js'),
  }),
  defineCommand({
    name: 'versions',
    paging: true,
    args: [{ name: '<library>', description: 'library uid or exact name', complete: { live: 'artifacts' } }],
    help: {
      summary: 'list the versions of a library',
      description:
        'List the versions of one library, given by uid or exact name (a name in both ecosystems is ambiguous: give the uid), ' +
        'oldest first unless --order-by says otherwise.',
      examples: [
        ['the versions of requests', 'pctl libraries versions requests'],
        ['newest first', "pctl libraries versions com.google.guava:guava --order-by 'created_at desc'"],
      ],
    },
    load: () => import('./versions.js'),
  }),
  defineCommand({
    name: 'count',
    flags: { ecosystem },
    help: {
      summary: 'count the libraries of each ecosystem',
      description: 'Print how many libraries each ecosystem has (both unless --ecosystem names one).',
      examples: [['how many of each', 'pctl libraries count']],
    },
    load: () => import('./count.js'),
  }),
];
