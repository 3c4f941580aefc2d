// The command tree. This module is loaded on every invocation, so it holds only commander
// and declarations: each action imports its verb module (and through it undici, zod, conf,
// yaml, chalk) on use. main() returns the exit code and never calls process.exit.
import { readFileSync } from 'node:fs';
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  createContext,
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_MS,
  isDebugApi,
  isTruthy,
  OUTPUT_FORMATS,
  type Context,
  type OutputFormat,
} from './context.js';
import { applyHelp } from './help.js';

/** A verb module: `export async function run(ctx, args, opts)`; commander has checked the flags. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type VerbRun = (ctx: Context, args: string[], opts: any) => Promise<number | void>;
type Loader = () => Promise<{ run: VerbRun }>;

export async function main(argv: string[], partial: Partial<Context> = {}): Promise<number> {
  const ctx = createContext(partial);
  let exitCode = 0;
  const program = buildProgram(ctx, (code) => (exitCode = code));
  // Shell completion calls back with the words typed so far; it never fails loudly.
  if (argv[0] === '__complete') return (await import('./completion/complete.js')).runComplete(ctx, argv.slice(1), program);
  // `pctl` alone prints the command groups on stdout (exit 0, like gh); `pctl groups` alone stays a usage error.
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already written its message (on our stderr) for usage errors.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      return 2;
    }
    const { renderError, exitCodeFor } = await import('./errors.js');
    renderError(ctx.io, err, ctx.globals.debug);
    return exitCodeFor(err);
  }
}

export function buildProgram(ctx: Context, setExit: (code: number) => void): Command {
  const io = ctx.io;
  const program = new Command('pctl');
  // Settings made before .command() are inherited by every subcommand.
  program
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
      outputError: (s, write) => write(s),
      getOutHelpWidth: () => (io.stdoutIsTTY ? io.columns : 80),
      getErrHelpWidth: () => (io.stderrIsTTY ? io.columns : 80),
    })
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError();

  program
    .description('Command-line administration tool for the Platform Management API v2')
    .version(packageVersion(), '-V, --version')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('--profile <name>', 'saved profile to use (env PCTL_PROFILE)')
    .option('--api-url <url>', 'API base URL, overrides the profile (env PCTL_API_URL)')
    .option('--timeout <duration>', `connect and request timeout, e.g. 10s, 500ms, 2m (default ${DEFAULT_TIMEOUT_MS / 1000}s)`, parseDuration)
    .option('--retries <n>', `retries of a failed GET, DELETE or masked PATCH on connection errors, 502, 503, 504, and of any request on 429 (default ${DEFAULT_RETRIES}; 0 disables)`, nonNegativeInt)
    .option('--jq <expression>', "filter the JSON output through jq (implies -o json; strings print raw, e.g. --jq '.[].name')")
    .option('--debug', 'trace HTTP requests to stderr, tokens masked (env PCTL_DEBUG=1; PCTL_DEBUG=api adds bodies)')
    .option('--no-color', 'no ANSI color (env NO_COLOR)')
    .option('-y, --yes', 'do not ask for confirmation on destructive commands')
    .addHelpText(
      'after',
      '\nReferences: wherever a group or repo uid is expected, its name or a unique uid suffix works too.' +
        '\nEnvironment: PCTL_API_URL, PCTL_TOKEN, PCTL_PROFILE, PCTL_CONFIG_DIR, PCTL_DEBUG (1, or api for bodies), NO_COLOR' +
        '\nExit codes: 0 ok, 1 request failed, 2 usage error, 3 not found, 4 authentication or permission',
    );

  program.hook('preAction', (_root, action) => {
    const o = action.optsWithGlobals();
    const noColorEnv = ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '';
    ctx.globals = {
      output: o.output as OutputFormat | undefined,
      profile: o.profile as string | undefined,
      apiUrl: o.apiUrl as string | undefined,
      debug: Boolean(o.debug) || isTruthy(ctx.env.PCTL_DEBUG),
      debugBodies: isDebugApi(ctx.env.PCTL_DEBUG),
      jq: o.jq as string | undefined,
      retries: (o.retries as number | undefined) ?? DEFAULT_RETRIES,
      color: o.color !== false && !noColorEnv,
      yes: Boolean(o.yes),
      timeoutMs: (o.timeout as number | undefined) ?? DEFAULT_TIMEOUT_MS,
    };
  });

  const lazy =
    (load: Loader) =>
    async (...actionArgs: unknown[]): Promise<void> => {
      const cmd = actionArgs[actionArgs.length - 1] as Command;
      const positionals = actionArgs.slice(0, cmd.registeredArguments.length) as string[];
      const run = async () => (await (await load()).run(ctx, positionals, cmd.optsWithGlobals())) ?? 0;
      if (ctx.globals.jq === undefined) return setExit(await run());
      // jq (WebAssembly) is loaded only here: the expression is compiled before the command runs.
      const { withJq } = await import('../output/jq.js');
      setExit(await withJq(ctx, ctx.globals.jq, run));
    };

  const resource = (name: string, description: string) => program.command(name).description(description);

  // ---- groups ----
  const groups = resource('groups', 'manage groups (organizations are root groups)');
  paging(groups.command('list').alias('ls').description('list groups'))
    .option('--descendants-of <uid>', 'only groups below this group or organization')
    .option('--children-of <uid>', 'only direct children of this group')
    .option('--name <name>', 'only groups with exactly this name')
    .action(lazy(() => import('./commands/groups/list.js')));
  groups.command('get').alias('describe').argument('<uid>', 'group uid').description('show a group')
    .action(lazy(() => import('./commands/groups/get.js')));
  groups.command('create').argument('<name>', 'group name').description('create a group')
    .requiredOption('--parent <uid>', 'uid of the parent group or organization')
    .option('--description <text>', 'description')
    .action(lazy(() => import('./commands/groups/create.js')));
  groups.command('update').argument('<uid>', 'group uid').description('change a group: only the fields given are sent')
    .option('--name <name>', 'new name')
    .option('--description <text>', 'new description ("" clears it)')
    .action(lazy(() => import('./commands/groups/update.js')));
  groups.command('delete').alias('rm').argument('<uid>', 'group uid').description('delete a group (it must be empty)')
    .action(lazy(() => import('./commands/groups/delete.js')));

  // ---- identities ----
  const identities = resource('identities', 'manage identities (who may get tokens, matched on OIDC claims)');
  paging(identities.command('list').alias('ls').description('list identities'))
    .addOption(new Option('--group <uid>', 'only identities of this group (same as --children-of)').conflicts('childrenOf'))
    .option('--children-of <uid>', 'only identities directly in this group')
    .option('--descendants-of <uid>', 'only identities anywhere below this group')
    .action(lazy(() => import('./commands/identities/list.js')));
  identities.command('get').alias('describe').argument('<uid>', 'identity uid').description('show an identity')
    .action(lazy(() => import('./commands/identities/get.js')));
  identities.command('create').argument('<name>', 'identity name').description('create an identity')
    .requiredOption('--parent <uid>', 'uid of the group the identity belongs to')
    .requiredOption('--issuer <url>', 'token issuer URL')
    .requiredOption('--subject <subject>', 'the exact subject claim to match')
    .option('--description <text>', 'description')
    .action(lazy(() => import('./commands/identities/create.js')));
  identities.command('update').argument('<uid>', 'identity uid').description('change an identity: only the fields given are sent')
    .option('--name <name>', 'new name')
    .option('--description <text>', 'new description ("" clears it)')
    .option('--issuer <url>', 'new token issuer URL')
    .option('--subject <subject>', 'new subject claim')
    .action(lazy(() => import('./commands/identities/update.js')));
  identities.command('delete').alias('rm').argument('<uid>', 'identity uid').description('delete an identity')
    .action(lazy(() => import('./commands/identities/delete.js')));

  // ---- roles ----
  const roles = resource('roles', 'manage roles: the built-in ones and custom sets of capabilities');
  paging(roles.command('list').alias('ls').description('list roles'))
    .option('--capabilities', 'show each role\'s capabilities')
    .action(lazy(() => import('./commands/roles/list.js')));
  roles.command('get').alias('describe').argument('<role>', 'role uid or name').description('show a role')
    .action(lazy(() => import('./commands/roles/get.js')));
  roles.command('create').argument('<name>', 'role name').description('create a custom role on a group')
    .requiredOption('--parent <uid>', 'the group whose role bindings (and its descendants\') may use the role')
    .requiredOption('--capability <name>', 'a capability, e.g. groups.list (repeatable, or comma-separated)', collect)
    .option('--description <text>', 'description')
    .action(lazy(() => import('./commands/roles/create.js')));
  roles.command('update').argument('<role>', 'custom role uid or name').description('change a custom role: only the fields given are sent')
    .option('--name <name>', 'new name')
    .option('--description <text>', 'new description ("" clears it)')
    .option('--capability <name>', 'the new set of capabilities (repeatable, or comma-separated; replaces the old set)', collect)
    .action(lazy(() => import('./commands/roles/update.js')));
  roles.command('delete').alias('rm').argument('<role>', 'custom role uid or name').description('delete a custom role (it must not be bound)')
    .action(lazy(() => import('./commands/roles/delete.js')));

  // ---- role bindings ----
  const bindings = resource('role-bindings', 'grant roles to identities within a group');
  paging(bindings.command('list').alias('ls').description('list role bindings'))
    .addOption(new Option('--group <uid>', 'only bindings of this group (same as --children-of)').conflicts('childrenOf'))
    .option('--children-of <uid>', 'only bindings directly in this group')
    .option('--descendants-of <uid>', 'only bindings anywhere below this group')
    .action(lazy(() => import('./commands/role-bindings/list.js')));
  bindings.command('get').alias('describe').argument('<uid>', 'role binding uid').description('show a role binding')
    .action(lazy(() => import('./commands/role-bindings/get.js')));
  bindings.command('create').description('bind a role to an identity in a group')
    .requiredOption('--parent <uid>', 'uid of the group the binding applies to')
    .requiredOption('--identity <uid>', 'uid of the identity')
    .requiredOption('--role <role>', 'role uid or name (e.g. viewer)')
    .action(lazy(() => import('./commands/role-bindings/create.js')));
  bindings.command('delete').alias('rm').argument('<uid>', 'role binding uid').description('delete a role binding')
    .action(lazy(() => import('./commands/role-bindings/delete.js')));

  // ---- registry ----
  const repos = resource('repos', 'image repositories (they live in groups)');
  paging(repos.command('list').alias('ls').description('list repos'))
    .option('--descendants-of <uid>', 'only repos anywhere below this group or organization')
    .option('--children-of <uid>', 'only repos directly in this group')
    .option('--name <name>', 'only repos with exactly this name')
    .action(lazy(() => import('./commands/repos/list.js')));
  repos.command('get').alias('describe').argument('<uid>', 'repo uid').description('show a repo')
    .action(lazy(() => import('./commands/repos/get.js')));
  repos.command('update').argument('<uid>', 'repo uid').description('change a repo: only the fields given are sent')
    .option('--name <name>', 'new name')
    .option('--description <text>', 'new description ("" clears it)')
    .action(lazy(() => import('./commands/repos/update.js')));

  const tags = resource('tags', 'image tags of a repo');
  paging(tags.command('list').alias('ls').description('list the tags of a repo'))
    .requiredOption('--repo <uid>', 'uid of the repo (required)')
    .option('--deprecated', 'only end-of-life tags (filtered here: the API has no such filter; every page is still read)')
    .action(lazy(() => import('./commands/tags/list.js')));

  // ---- vulnerabilities ----
  const advisories = resource('advisories', 'vulnerability advisories');
  paging(advisories.command('list').alias('ls').description('list advisories'))
    .option('--artifact <name>', 'only advisories for this artifact (repeatable: any of them)', collect)
    .option('--advisory-id <id>', 'only this advisory id, e.g. CGA-2026-0001 (repeatable: any of them)', collect)
    .action(lazy(() => import('./commands/advisories/list.js')));
  advisories.command('get').alias('describe').argument('<uid>', 'advisory uid').description('show an advisory')
    .action(lazy(() => import('./commands/advisories/get.js')));

  // ---- api ----
  program.command('api')
    .description('send a request to any endpoint (like gh api): pctl api METHOD PATH, or pctl api PATH for GET')
    .argument('<method>', 'HTTP method (GET, POST, PATCH, DELETE …), or the PATH for a GET')
    .argument('[path]', 'path below the API URL, e.g. /iam/v2/groups (a ?query is kept)')
    .option('-f, --raw-field <key=value>', 'add a string field to the JSON body (repeatable; group[name]=x nests, tags[]=a appends)', collect)
    .option('-F, --field <key=value>', 'add a typed field: true, false, null and numbers are JSON, @file reads a file, @- stdin (repeatable)', collect)
    .option('--input <file>', 'send this file as the request body (- for stdin)')
    .option('-q, --query <key=value>', 'add a query parameter (repeatable)', collect)
    .option('-H, --header <header>', "add a request header, 'Name: value' (repeatable)", collect)
    .option('--paginate', 'follow nextPageToken and print one document with every item')
    .option('-i, --include', 'print the status line and response headers before the body')
    .addHelpText(
      'after',
      '\nWithout METHOD a request is a GET, or a POST when it has fields or --input. On a GET, fields become' +
        '\nquery parameters (as in gh). The body is printed pretty on a terminal and as received in a pipe.' +
        '\nAn error status prints the error on stderr and exits 1, 3 or 4 like any command (with -i the' +
        '\nresponse is printed on stdout as well).',
    )
    .action(lazy(() => import('./commands/api/run.js')));

  // ---- auth ----
  const auth = resource('auth', 'sign in to the API and manage the saved token');
  auth.command('login').description('sign in with a browser (authorization code + PKCE) and save the token in the profile')
    .option('--no-browser', 'only print the sign-in URL, do not open a browser')
    .option('--with-token', 'read a token from stdin instead (CI), check it against the API and save it')
    .action(lazy(() => import('./commands/auth/login.js')));
  auth.command('status').description('show the profile, API URL, issuer, subject, identity and expiry of the token (never the token)')
    .action(lazy(() => import('./commands/auth/status.js')));
  auth.command('token').description('print the token, for $(pctl auth token)')
    .action(lazy(() => import('./commands/auth/token.js')));
  auth.command('logout').description("remove the token from the profile")
    .action(lazy(() => import('./commands/auth/logout.js')));

  // ---- config (profiles) ----
  const config = resource('config', 'manage profiles (API URL and token) in PCTL_CONFIG_DIR');
  config.command('list').alias('ls').description('list profiles; * marks the current one')
    .action(lazy(() => import('./commands/config/list.js')));
  config.command('get').alias('describe').argument('[name]', 'profile (default: the current one)')
    .argument('[key]', 'api-url or token: print just that value')
    .option('--show-token', 'print the token instead of ***')
    .description('show a profile or one of its values')
    .action(lazy(() => import('./commands/config/get.js')));
  config.command('set').argument('<name>', 'profile').argument('[key]', 'api-url or token (or give --api-url URL instead)').argument('[value]', 'the value (token: read from stdin)')
    .description('set a profile value, creating the profile; the token is read from stdin so that it stays out of shell history')
    .action(lazy(() => import('./commands/config/set.js')));
  config.command('use').argument('<name>', 'profile').description('make a profile the current one')
    .action(lazy(() => import('./commands/config/use.js')));
  config.command('delete').alias('rm').argument('<name>', 'profile').description('delete a profile')
    .action(lazy(() => import('./commands/config/delete.js')));

  // ---- serve ----
  const serve = program.command('serve')
    .description('run the local, file-backed implementation of the API')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free port)', parsePort, 8700)
    .option('--data <dir>', 'data directory')
    .option('--seed <file>', 'load groups, identities, repos, tags and advisories from a YAML or JSON file into an empty data dir')
    .option('--demo', 'load the built-in demo data set into an empty data dir')
    .option('--log', 'log each request to stderr (tokens masked)')
    .option('--rate-limit <rate>', 'requests per caller (identity, else client address): RATE/UNIT[,BURST] with UNIT s, m or h, e.g. 50/s or 6000/m,200; or off (default: 100/s)')
    .option('--trust-issuer <url=jwks-file>', "also accept tokens of another issuer, checked offline against its JWKS file, for identities that name it (repeatable)", collect)
    .option('--owner-token-ttl <duration>', 'lifetime of the owner token in DIR/owner.token, e.g. 12h or 7d (default 30d, at most 90d)')
    .action(async (_opts: unknown, cmd: Command) => {
      const m = await import('./commands/serve/run.js');
      setExit(await m.runServe(ctx, cmd.optsWithGlobals()));
    });
  serve.command('export').description('print the data dir as a seed file (YAML) on stdout')
    .option('--data <dir>', 'data directory')
    .action(async (_opts: unknown, cmd: Command) => {
      const m = await import('./commands/serve/run.js');
      setExit(await m.runExport(ctx, cmd.optsWithGlobals()));
    });
  serve.command('token').description("print a bearer token for an identity of serve's own issuer")
    .option('--identity <uid>', "identity uid (its claimMatch.issuer must be this serve); default: the data dir's owner")
    .option('--ttl <duration>', 'lifetime, e.g. 30m, 1h, 7d (at most 90d)', '1h')
    .option('--data <dir>', 'data directory')
    .action(async (_opts: unknown, cmd: Command) => {
      const m = await import('./commands/serve/token.js');
      setExit(await m.runToken(ctx, cmd.optsWithGlobals()));
    });
  serve.command('reset').description('delete all data in the data dir')
    .option('--data <dir>', 'data directory')
    .action(async (_opts: unknown, cmd: Command) => {
      const m = await import('./commands/serve/run.js');
      setExit(await m.runReset(ctx, cmd.optsWithGlobals()));
    });

  // ---- completion ----
  program.command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: 'bash' | 'zsh' | 'fish') => {
      const m = await import('./completion/scripts.js');
      setExit(await m.runCompletion(ctx, shell, program));
    });

  applyHelp(program);
  return program;
}

/** The paging flags every list command takes. */
function paging(cmd: Command): Command {
  return cmd
    .option('--limit <n>', 'print at most N items (default: all)', positiveInt)
    .option('--page-size <n>', 'items per request, 1-200', pageSize)
    .option('--order-by <order>', 'sort order, e.g. name, "name desc", "created_at desc"')
    .option('--skip <n>', 'skip the first N matches', nonNegativeInt)
    .option('--page-token <token>', 'start from this page token');
}

/** Repeatable flags: `--artifact a --artifact b` → ['a', 'b']. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('must be a positive integer.');
  return n;
}

function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer.');
  return Number(value);
}

function pageSize(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 200) throw new InvalidArgumentError('must be an integer from 1 to 200.');
  return n;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535).');
  return n;
}

/** `30s`, `500ms`, `2m`, or a bare number of seconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('must be a duration such as 10s, 500ms or 2m.');
  const n = Number(m[1]);
  const ms = m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
  if (ms < 1) throw new InvalidArgumentError('must be at least 1ms.');
  return Math.round(ms);
}

function packageVersion(): string {
  try {
    // src/cli/main.ts and dist/cli/main.js both sit two levels below package.json.
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
