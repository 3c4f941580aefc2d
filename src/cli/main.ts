// The command tree. This module is loaded on every invocation, so it holds only commander
// and declarations: each action imports its verb module (and through it the HTTP client, zod, conf,
// yaml, chalk) on use. main() returns the exit code and never calls process.exit.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { applyHelp, build, flag, missingRequired, nonNegativeInt, parseDuration, toOption, type Handler, type Help } from './command.js';
import { commandTree } from './commands/index.js';
import { commandPath } from './help.js';
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

export { parseDuration };

const ROOT_HELP: Help = {
  summary: 'Command-line administration tool for the Platform Management API v2',
  description:
    'pctl manages groups, identities, roles, role bindings, repos, tags and advisories through the Platform Management API v2, ' +
    'and `pctl serve` runs a local, file-backed implementation of that API. Commands read the API URL and token from ' +
    'flags, then the environment, then the saved profile.',
  examples: [
    ['start a local API with demo data (it saves the profile "local")', 'pctl serve --demo'],
    ['every group below an organization, as a table', 'pctl groups list --descendants-of acme'],
    ['the names only, through jq', "pctl groups list --jq '.[].name'"],
  ],
};

const ROOT_NOTES =
  '\nReferences: wherever a group, identity, role, repo, invite or identity provider uid is expected, its name (an invite has none) or a unique uid suffix works too; a group also by its name path (acme/platform).' +
  '\nEnvironment: PCTL_API_URL, PCTL_TOKEN, PCTL_PROFILE, PCTL_CONFIG_DIR, PCTL_DEBUG (1, or api for bodies), NO_COLOR' +
  '\nExit codes: 0 ok, 1 request failed, 2 usage error, 3 not found, 4 authentication or permission';

export async function main(argv: string[], partial: Partial<Context> = {}): Promise<number> {
  const ctx = createContext({ ...partial, argv });
  let exitCode = 0;
  const program = buildProgram(ctx, (code) => (exitCode = code), argv[0] === '__complete' ? undefined : commandNamed(argv));
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

/** -o's value: one of the formats, or yml for yaml (not offered by completion: one name per format). */
function outputFormat(value: string): OutputFormat {
  const format = value === 'yml' ? 'yaml' : value;
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    throw new InvalidArgumentError(`Allowed choices are ${OUTPUT_FORMATS.join(', ')}.`);
  }
  return format as OutputFormat;
}

/** The commands `-o tree` has a meaning for. */
const TREE_COMMANDS: ReadonlySet<string> = new Set(['groups list']);

/** The program; `only` names the one top-level command to build (all of them when it names none). */
export function buildProgram(ctx: Context, setExit: (code: number) => void, only?: string): Command {
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
    .version(packageVersion(), '-V, --version')
    .addOption(new Option('-o, --output <format>', 'output format (yml is yaml)').choices(OUTPUT_FORMATS).argParser(outputFormat))
    .addOption(toOption(flag.string('--profile <name>', 'saved profile to use (env PCTL_PROFILE)', { complete: { live: 'profile' } })))
    .option('--api-url <url>', 'API base URL, overrides the profile (env PCTL_API_URL)')
    .option('--timeout <duration>', `connect and request timeout, e.g. 10s, 500ms, 2m (default ${DEFAULT_TIMEOUT_MS / 1000}s)`, parseDuration)
    .option('--retries <n>', `retries of a failed GET, DELETE or masked PATCH on connection errors, 502, 503, 504, and of any request on 429 (default ${DEFAULT_RETRIES}; 0 disables)`, nonNegativeInt)
    .option('--json [fields]', 'print only these comma-separated fields as JSON (e.g. uid,name); alone, list the fields; combines with --jq')
    .option('--jq <expression>', "filter the JSON output through jq (implies -o json; strings print raw, e.g. --jq '.[].name')")
    .option('--debug', 'trace HTTP requests to stderr, tokens masked (env PCTL_DEBUG=1; PCTL_DEBUG=api adds bodies)')
    .option('--no-color', 'no ANSI color (env NO_COLOR)')
    .option('-y, --yes', 'do not ask for confirmation on destructive commands');

  program.hook('preAction', (_root, action) => {
    // Every required flag that is missing, in one message (exit 2).
    const missing = missingRequired(action).map((o) => `'${o.flags}'`);
    if (missing.length) {
      action.error(`error: required option${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not specified`, { code: 'commander.missingMandatoryOptionValue' });
    }
    const o = action.optsWithGlobals();
    // A tree needs a hierarchy to draw: only groups have one (identities would come out flat).
    if (o.output === 'tree' && !TREE_COMMANDS.has(commandPath(action))) {
      action.error(`error: -o tree draws the group hierarchy: only ${[...TREE_COMMANDS].map((c) => `pctl ${c}`).join(' and ')} ${TREE_COMMANDS.size > 1 ? 'have' : 'has'} it; use -o table, json, yaml, ndjson, id or csv`, { code: 'commander.invalidArgument' });
    }
    const noColorEnv = ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '';
    ctx.globals = {
      output: o.output as OutputFormat | undefined,
      profile: o.profile as string | undefined,
      apiUrl: o.apiUrl as string | undefined,
      debug: Boolean(o.debug) || isTruthy(ctx.env.PCTL_DEBUG),
      debugBodies: isDebugApi(ctx.env.PCTL_DEBUG),
      jq: o.jq as string | undefined,
      ...(o.json !== undefined ? { json: o.json as true | string } : {}),
      retries: (o.retries as number | undefined) ?? DEFAULT_RETRIES,
      color: o.color !== false && !noColorEnv,
      yes: Boolean(o.yes),
      timeoutMs: (o.timeout as number | undefined) ?? DEFAULT_TIMEOUT_MS,
    };
  });

  const lazy =
    (load: () => Promise<{ run: Handler<never> }>) =>
    async (...actionArgs: unknown[]): Promise<void> => {
      const cmd = actionArgs[actionArgs.length - 1] as Command;
      const positionals = actionArgs.slice(0, cmd.registeredArguments.length) as string[];
      const run = async () => (await (await load()).run(ctx, positionals, cmd.optsWithGlobals<never>(), program)) ?? 0;
      if (ctx.globals.json !== undefined) {
        const { selectFields } = await import('./json-fields.js');
        const listed = await selectFields(ctx, cmd, ctx.globals.json);
        if (listed !== undefined) return setExit(listed);
      }
      if (ctx.globals.jq === undefined) return setExit(await run());
      // jq (WebAssembly) is loaded only here: the expression is compiled before the command runs.
      const { withJq } = await import('./jq.js');
      setExit(await withJq(ctx, ctx.globals.jq, run));
    };

  // Startup: commander objects for the one command given, not for all ~150 of them.
  const tree = commandTree();
  const named = only === undefined ? undefined : tree.find((d) => d.name === only || d.aliases?.includes(only));
  for (const decl of named ? [named] : tree) build(program, decl, lazy);
  applyHelp(program, ROOT_HELP, ROOT_NOTES);
  return program;
}

/** Global options whose value is the next word (`--json` too: commander takes a next word that is no flag). */
const GLOBAL_VALUE_FLAGS = new Set(['-o', '--output', '--profile', '--api-url', '--timeout', '--retries', '--jq', '--json']);
/** Commands that read the whole tree (the completion script lists every command). */
const WHOLE_TREE = new Set(['completion']);

/** The top-level command word of a command line, when one is given before anything else. */
function commandNamed(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return undefined;
    if (!word.startsWith('-')) return WHOLE_TREE.has(word) ? undefined : word;
    if (GLOBAL_VALUE_FLAGS.has(word) && !(word === '--json' && argv[i + 1]?.startsWith('-'))) i++;
  }
  return undefined;
}

function packageVersion(): string {
  try {
    // src/cli/main.ts, dist/cli/main.js and the bundle's dist/bundle/*.js all sit two levels below package.json.
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
