// pctl export | diff | apply: the organization as code (docs/org-as-code.md). The manifest
// is the seed format (src/api/seed.ts); the server's state is read and changed through the
// client, so these work against any v2 endpoint, with the caller's rights.
import { defineCommand, flag } from '../../command.js';

const file = flag.required('-f, --file <file>', 'the manifest: YAML or JSON in the seed format (- for stdin)', { complete: 'file' });
const prune = flag.bool('--prune', "also delete what the server has under the manifest's groups and the manifest does not list");

export const diffFlags = { file, prune };
export const applyFlags = {
  file,
  prune,
  dryRun: flag.bool('--dry-run', 'show the plan and change nothing'),
};

const exitNotes =
  '\nExit status: 0 nothing differs, 1 something differs, 2 an invalid manifest or usage error,' +
  '\n3 not found, 4 authentication or permission, 5 any other failure.';

export const manifestCommands = [
  defineCommand({
    name: 'export',
    args: [{ name: '[group]', description: 'the group (name path acme/platform, name or uid) whose subtree to write; default: your organization', complete: { live: 'groups' } }],
    help: {
      summary: 'write a group subtree as a manifest (YAML, or JSON with -o json)',
      description:
        'Write the subtree of a group (default: your organization) as a manifest: groups, identities, custom roles, role bindings, ' +
        'identity providers, account associations and repo descriptions, ordered by name, references by name, without uids, ' +
        'times or secrets. What you cannot read is left out and said so on stderr. Feed it to pctl diff and pctl apply.',
      examples: [
        ['keep the organization in version control', 'pctl export > org.yaml'],
        ['one team, as JSON', 'pctl export acme/platform -o json > platform.json'],
      ],
    },
    load: () => import('./export.js'),
  }),
  defineCommand({
    name: 'diff',
    flags: diffFlags,
    help: {
      summary: 'show what apply would change (exit 1 when something differs)',
      description:
        'Compare a manifest with the server: + create, ~ update (with field: old → new), - delete (only with --prune), grouped by ' +
        'group path; -o json for machines. Exit 0 when nothing differs and 1 when something does, so CI can fail on drift.',
      examples: [
        ['review a change', 'pctl diff -f org.yaml'],
        ['fail a CI job on drift', 'pctl diff -f org.yaml --prune > /dev/null'],
      ],
    },
    notes: exitNotes,
    load: () => import('./diff.js'),
  }),
  defineCommand({
    name: 'apply',
    flags: applyFlags,
    help: {
      summary: 'make the server match a manifest',
      description:
        'Show the plan, then create, update and (with --prune) delete until the server matches the manifest, parents before ' +
        'children, deletes in reverse. Deletes are asked about on a terminal and refused without one unless --yes. ' +
        'A failure stops new changes and reports what was applied, what failed and what was not tried; running again converges.',
      examples: [
        ['apply a reviewed manifest', 'pctl apply -f org.yaml'],
        ['see the plan only', 'pctl apply -f org.yaml --dry-run'],
        ['from CI, deletes included', 'pctl apply -f org.yaml --prune --yes'],
      ],
    },
    load: () => import('./apply.js'),
  }),
];
