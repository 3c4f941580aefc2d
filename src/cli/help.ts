// Help text beyond the one-line summaries in main.ts: a longer description and 1-3 examples
// per command, keyed by the command's path ("groups list"; "" is pctl itself). applyHelp()
// puts them into the commander tree (`pctl … --help`), and the man page generator reads the
// same tree, so --help and man/pctl.1 cannot drift apart. Plain data: loaded on every
// invocation, so no imports beyond types.
import type { Command } from 'commander';

/** [what it does, the command line]: shown as `  # note` then `  $ command`. */
export type Example = readonly [note: string, command: string];

export interface HelpEntry {
  /** Shown in the command's own --help and in the man page; the one-line summary stays in main.ts. */
  description: string;
  examples: readonly Example[];
}

export const HELP: Readonly<Record<string, HelpEntry>> = {
  '': {
    description:
      'pctl manages groups, identities, roles, role bindings, repos, tags and advisories through the Platform Management API v2, ' +
      'and `pctl serve` runs a local, file-backed implementation of that API. Commands read the API URL and token from ' +
      'flags, then the environment, then the saved profile.',
    examples: [
      ['start a local API with demo data (it saves the profile "local")', 'pctl serve --demo'],
      ['every group below an organization, as a table', 'pctl groups list --descendants-of acme'],
      ['the names only, through jq', "pctl groups list --jq '.[].name'"],
    ],
  },

  // ---- groups ----
  groups: {
    description:
      'Groups form a tree: an organization is a root group, and identities, role bindings and repos live in groups. ' +
      'Wherever a group is expected, its uid, its name or a unique uid suffix is accepted.',
    examples: [
      ['list every group you can see', 'pctl groups list'],
      ['create a group below the organization acme', 'pctl groups create platform --parent acme'],
    ],
  },
  'groups list': {
    description:
      'List groups, following page tokens until every match is printed (or --limit is reached). ' +
      '--descendants-of and --children-of scope the listing to a subtree or to direct children.',
    examples: [
      ['every group anywhere below acme', 'pctl groups list --descendants-of acme'],
      ['direct children only, as uids', 'pctl groups list --children-of acme -o id'],
      ['the ten most recently created groups', "pctl groups list --order-by 'created_at desc' --limit 10"],
    ],
  },
  'groups get': {
    description: 'Show one group: uid, name, description and timestamps. The group may be given by uid, name or unique uid suffix.',
    examples: [
      ['show a group by name', 'pctl groups get platform'],
      ['as YAML, by uid', 'pctl groups get "$GROUP_UID" -o yaml'],
    ],
  },
  'groups create': {
    description: 'Create a group below a parent group or organization and print it. Names must be unique among siblings.',
    examples: [
      ['a team below the organization', "pctl groups create platform --parent acme --description 'the platform team'"],
      ['keep just the new uid for a script', 'GROUP=$(pctl groups create web --parent platform -o id)'],
    ],
  },
  'groups update': {
    description: 'Change the name or description of a group. Only the fields given are sent (as the update mask).',
    examples: [
      ['rename a group', 'pctl groups update platform --name infra'],
      ['clear the description', "pctl groups update infra --description ''"],
    ],
  },
  'groups delete': {
    description: 'Delete a group. It must be empty. On a terminal pctl asks for confirmation unless --yes is given.',
    examples: [['delete a group without asking', 'pctl groups delete old-team --yes']],
  },

  // ---- identities ----
  identities: {
    description:
      'An identity is who may get tokens: it lives in a group and matches the issuer and subject claims of an OIDC token ' +
      '(for example a CI workflow). Role bindings grant it roles.',
    examples: [
      ['the identities of a group', 'pctl identities list --group platform'],
      [
        'an identity for a GitHub Actions workflow',
        "pctl identities create deployer --parent platform --issuer https://token.actions.githubusercontent.com --subject 'repo:acme/app:ref:refs/heads/main'",
      ],
    ],
  },
  'identities list': {
    description: 'List identities, every page. --group (or --children-of) lists those of one group, --descendants-of those of a subtree.',
    examples: [
      ['the identities directly in a group', 'pctl identities list --group platform'],
      ['everything below the organization, as JSON', 'pctl identities list --descendants-of acme -o json'],
    ],
  },
  'identities get': {
    description: 'Show one identity, with the claims it matches.',
    examples: [['show an identity as YAML', 'pctl identities get "$IDENTITY_UID" -o yaml']],
  },
  'identities create': {
    description:
      'Create an identity in a group. A token whose issuer and subject claims equal --issuer and --subject is accepted as this identity.',
    examples: [
      [
        'a CI identity',
        "pctl identities create deployer --parent platform --issuer https://token.actions.githubusercontent.com --subject 'repo:acme/app:ref:refs/heads/main'",
      ],
    ],
  },
  'identities update': {
    description: 'Change the name, description, issuer or subject of an identity. Only the fields given are sent.',
    examples: [['match another branch', "pctl identities update \"$IDENTITY_UID\" --subject 'repo:acme/app:ref:refs/heads/release'"]],
  },
  'identities delete': {
    description: 'Delete an identity. On a terminal pctl asks for confirmation unless --yes is given.',
    examples: [['delete without asking', 'pctl identities delete "$IDENTITY_UID" --yes']],
  },

  // ---- roles ----
  roles: {
    description: 'Roles are named sets of capabilities (owner, editor, viewer, and custom ones). Role bindings grant them.',
    examples: [['the roles, with more columns', 'pctl roles list -o wide']],
  },
  'roles list': {
    description: 'List the roles that role bindings can grant.',
    examples: [
      ['every role', 'pctl roles list'],
      ['with their capabilities', 'pctl roles list --capabilities'],
      ['names only', "pctl roles list --jq '.[].name'"],
    ],
  },
  'roles get': {
    description: 'Show one role and its capabilities, by uid or by name.',
    examples: [['what a viewer may do', 'pctl roles get viewer -o yaml']],
  },
  'roles create': {
    description:
      'Create a custom role on a group: a name and a set of capabilities. Bindings on that group and below may use it. ' +
      'You can only give a role capabilities you hold on that group yourself.',
    examples: [
      ['a role that may list groups and identities', 'pctl roles create auditor --parent platform --capability groups.list,identity.list'],
      ['the same with repeated flags', 'pctl roles create auditor --parent platform --capability groups.list --capability identity.list'],
    ],
  },
  'roles update': {
    description: 'Change a custom role. Only the flags given are sent; --capability replaces the whole set. Built-in roles are read-only.',
    examples: [['let auditors see repos too', 'pctl roles update auditor --capability groups.list,identity.list,repo.list']],
  },
  'roles delete': {
    description: 'Delete a custom role. It must not be bound: delete its role bindings first. Asks for confirmation on a terminal unless --yes.',
    examples: [['delete without asking', 'pctl roles delete auditor --yes']],
  },

  // ---- role bindings ----
  'role-bindings': {
    description: 'A role binding grants a role to an identity within a group, and so in everything below that group.',
    examples: [
      ['who has which role in a group', 'pctl role-bindings list --group platform'],
      ['make an identity a viewer of a group', 'pctl role-bindings create --parent platform --identity "$IDENTITY_UID" --role viewer'],
    ],
  },
  'role-bindings list': {
    description: 'List role bindings, every page. --group (or --children-of) lists those of one group, --descendants-of those of a subtree.',
    examples: [
      ['the bindings of a group', 'pctl role-bindings list --group platform'],
      ['every binding below the organization', 'pctl role-bindings list --descendants-of acme -o wide'],
    ],
  },
  'role-bindings get': {
    description: 'Show one role binding.',
    examples: [['as JSON', 'pctl role-bindings get "$BINDING_UID" -o json']],
  },
  'role-bindings create': {
    description: 'Grant a role (by uid or name) to an identity within a group, and print the new binding.',
    examples: [
      ['make an identity an editor of a group', 'pctl role-bindings create --parent platform --identity "$IDENTITY_UID" --role editor'],
    ],
  },
  'role-bindings delete': {
    description: 'Delete a role binding, revoking the role it granted. On a terminal pctl asks for confirmation unless --yes is given.',
    examples: [['revoke without asking', 'pctl role-bindings delete "$BINDING_UID" --yes']],
  },

  // ---- registry ----
  repos: {
    description: 'Image repositories live in groups; each has tags. Wherever a repo is expected, its uid, name or unique uid suffix is accepted.',
    examples: [
      ['the repos below an organization', 'pctl repos list --descendants-of acme'],
      ['the tags of a repo', 'pctl tags list --repo nginx'],
    ],
  },
  'repos list': {
    description: 'List repos, every page, optionally scoped to a subtree, to one group, or to an exact name.',
    examples: [
      ['every repo below an organization', 'pctl repos list --descendants-of acme'],
      ['find a repo by name', 'pctl repos list --name nginx -o id'],
    ],
  },
  'repos get': {
    description: 'Show one repo, by uid, name or unique uid suffix.',
    examples: [['show a repo by name', 'pctl repos get nginx']],
  },
  'repos update': {
    description: 'Change the name or description of a repo. Only the fields given are sent.',
    examples: [['describe a repo', "pctl repos update nginx --description 'web server images'"]],
  },
  tags: {
    description: 'The tags of an image repository: name, digest and whether the tag is deprecated (end of life).',
    examples: [['the tags of a repo', 'pctl tags list --repo nginx']],
  },
  'tags list': {
    description:
      'List the tags of one repo (--repo is required), every page. --deprecated keeps only end-of-life tags; the API has no such ' +
      'filter, so every page is still read and filtered here.',
    examples: [
      ['every tag of a repo', 'pctl tags list --repo nginx'],
      ['only the end-of-life tags, names only', "pctl tags list --repo nginx --deprecated --jq '.[].name'"],
    ],
  },

  // ---- vulnerabilities ----
  advisories: {
    description: 'Vulnerability advisories, each about one artifact (an image name).',
    examples: [['the advisories for nginx', 'pctl advisories list --artifact nginx']],
  },
  'advisories list': {
    description: 'List advisories, every page. --artifact and --advisory-id may be repeated; an advisory matching any of them is listed.',
    examples: [
      ['the advisories for two artifacts', 'pctl advisories list --artifact nginx --artifact envoy'],
      ['one advisory by its id', 'pctl advisories list --advisory-id CGA-2026-0001 -o yaml'],
    ],
  },
  'advisories get': {
    description: 'Show one advisory by its uid.',
    examples: [['as YAML', 'pctl advisories get "$ADVISORY_UID" -o yaml']],
  },

  // ---- api ----
  api: {
    description:
      'Send a request to any endpoint of the API, with the configured URL and token, and print the response body. ' +
      'Useful for endpoints that have no command yet, and for scripting.',
    examples: [
      ['every group, following page tokens', 'pctl api /iam/v2/groups --paginate -q page_size=50'],
      ['create a group with a JSON body built from fields', "pctl api POST /iam/v2/groups -f parent=$ORG -f 'group[name]=tools'"],
      ['update one field', "pctl api PATCH /registry/v2/repos/$REPO -q updateMask=description -f description='web images'"],
    ],
  },

  // ---- auth ----
  auth: {
    description: 'Sign in to the API, and show, print or remove the token saved in the current profile.',
    examples: [
      ['sign in with a browser', 'pctl auth login'],
      ['who am I, and until when', 'pctl auth status'],
    ],
  },
  'auth login': {
    description:
      'Sign in with a browser (authorization code with PKCE, answered on a loopback port) and save the token in the profile. ' +
      'In CI, --with-token reads a token from stdin instead and checks it against the API before saving it.',
    examples: [
      ['sign in with a browser', 'pctl auth login'],
      ['print the sign-in URL instead of opening a browser', 'pctl auth login --no-browser'],
      ['CI: a token from a secret', 'echo "$PCTL_CI_TOKEN" | pctl auth login --with-token'],
    ],
  },
  'auth status': {
    description: 'Show the profile, API URL, issuer, subject, identity and expiry of the token in use. The token itself is never printed.',
    examples: [['check the token in use', 'pctl auth status']],
  },
  'auth token': {
    description: 'Print the token in use (from PCTL_TOKEN or the profile), for other tools.',
    examples: [['call the API with curl', 'curl -H "Authorization: Bearer $(pctl auth token)" "$PCTL_API_URL/iam/v2/groups"']],
  },
  'auth logout': {
    description: 'Remove the token from the profile; the API URL stays.',
    examples: [['sign out of the current profile', 'pctl auth logout']],
  },

  // ---- config ----
  config: {
    description: 'Profiles hold an API URL and a token. They are saved in PCTL_CONFIG_DIR; one of them is the current profile.',
    examples: [
      ['list the profiles', 'pctl config list'],
      ['add a profile and make it current', 'pctl config set prod api-url https://api.example.com && pctl config use prod'],
    ],
  },
  'config list': {
    description: 'List the profiles and their API URLs; * marks the current one.',
    examples: [['list the profiles', 'pctl config list']],
  },
  'config get': {
    description: 'Show a profile (by default the current one), or just one of its values. The token is shown as *** unless --show-token is given.',
    examples: [
      ['the current profile', 'pctl config get'],
      ['just the API URL of a profile', 'pctl config get local api-url'],
    ],
  },
  'config set': {
    description:
      'Set the api-url or token of a profile, creating the profile if needed. A token is read from stdin (not from the ' +
      'command line) so that it stays out of shell history.',
    examples: [
      ['point a profile at an API', 'pctl config set prod api-url https://api.example.com'],
      ['the same, flag style', 'pctl config set prod --api-url https://api.example.com'],
      ['save a token from a file', 'pctl config set prod token < token.txt'],
    ],
  },
  'config use': {
    description: 'Make a profile the current one: commands use it when neither --profile nor PCTL_PROFILE is given.',
    examples: [['switch to the local serve', 'pctl config use local']],
  },
  'config delete': {
    description: 'Delete a profile, with its token.',
    examples: [['delete a profile', 'pctl config delete old']],
  },

  // ---- serve ----
  serve: {
    description:
      'Run the local, file-backed implementation of the API (SQLite in the data dir). The first start bootstraps an ' +
      'organization, an owner identity, the built-in roles and the owner token, and saves a profile named "local".',
    examples: [
      ['a local API with demo data on the default port', 'pctl serve --demo'],
      ['a throwaway server on a free port', 'pctl serve --port 0 --data "$(mktemp -d)"'],
      ['load your own seed file', 'pctl serve --data ./data --seed seed.yaml'],
    ],
  },
  'serve export': {
    description: 'Print the data dir as a seed file (YAML) on stdout; `pctl serve --seed` loads it back.',
    examples: [['copy a data set', 'pctl serve export --data ./data > seed.yaml']],
  },
  'serve token': {
    description: "Print a bearer token for an identity whose claimMatch.issuer is this serve. It needs the data dir (the issuer's key), not the API.",
    examples: [
      ['a one-day token for a test identity', 'pctl serve token --identity "$IDENTITY_UID" --ttl 1d --data ./data'],
      ["a fresh owner token (when owner.token has expired)", 'PCTL_TOKEN=$(pctl serve token --ttl 12h --data ./data) pctl groups list'],
    ],
  },
  'serve reset': {
    description: 'Delete all data in the data dir; the next start bootstraps again.',
    examples: [['start over', 'pctl serve reset --data ./data']],
  },

  // ---- completion ----
  completion: {
    description:
      'Print a shell completion script. It completes commands, flags and their values, and asks the configured API (through ' +
      'the hidden `pctl __complete`, with a short timeout) for group, repo, identity and role names and uids.',
    examples: [
      ['bash, for this shell', 'source <(pctl completion bash)'],
      ['zsh, installed in a directory on $fpath', 'pctl completion zsh > "${fpath[1]}/_pctl"'],
      ['fish', 'pctl completion fish > ~/.config/fish/completions/pctl.fish'],
    ],
  },
};

/** The path of a command below the root: "groups list"; "" for the root. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function isHidden(cmd: Command): boolean {
  return Boolean((cmd as unknown as { _hidden?: boolean })._hidden);
}

export function formatExamples(examples: readonly Example[]): string {
  return examples.map(([note, command]) => `  # ${note}\n  $ ${command}`).join('\n\n');
}

/**
 * Moves each command's one-line description into its summary (what the parent's command
 * list shows), sets the longer description from HELP and appends its examples to --help.
 */
export function applyHelp(cmd: Command): void {
  if (isHidden(cmd)) return;
  const entry = HELP[commandPath(cmd)];
  if (entry) {
    if (!cmd.summary()) cmd.summary(cmd.description());
    cmd.description(entry.description);
    cmd.addHelpText('after', `\nExamples:\n${formatExamples(entry.examples)}\n`);
  }
  for (const sub of cmd.commands) applyHelp(sub);
}
