// pctl tags list: the tags of one repo, with a client-side --deprecated filter.
import { defineList, flag } from '../../command.js';

export const listFlags = {
  repo: flag.required('--repo <repo>', 'the repo: uid, name or uid suffix (required)', { complete: { live: 'repos' } }),
  deprecated: flag.bool('--deprecated', 'only end-of-life tags (filtered here: the API has no such filter; every page is still read)'),
};

export const tagCommands = [
  defineList({
    flags: listFlags,
    help: {
      summary: 'list the tags of a repo',
      description:
        'List the tags of one repo (--repo is required), every page. --deprecated keeps only end-of-life tags; the API has no such ' +
        'filter, so every page is still read and filtered here.',
      examples: [
        ['every tag of a repo', 'pctl tags list --repo nginx'],
        ['only the end-of-life tags, names only', "pctl tags list --repo nginx --deprecated --jq '.[].name'"],
      ],
    },
    load: () => import('./list.js'),
  }),
];
