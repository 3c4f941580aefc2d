// Commands declared as data, one declaration per command: its name, arguments, typed flags,
// help (summary, description, examples), what completes each value, and a lazily imported
// handler. build() turns declarations into commander commands; completion, the man page
// and --help all read what it attached. Loaded on every invocation: no heavy imports, and a
// handler's module (with the HTTP client, zod, conf …) is imported only when the command runs.
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import type { Example, Help } from '../api/registry/define.js';
import type { Context } from './context.js';

export type { Example, Help };

/** What a value completes with: a live listing of a registry resource (by its plural, "roleBindings") or of the profiles, or the file system. */
export type ValueSource = { live: string } | { live: 'profile' } | 'file' | 'dir';

/** A flag; `V` is the type its value has in the handler's options. */
export interface Flag<V> {
  flags: string;
  description: string;
  required?: boolean;
  parse?: (value: string, previous: never) => unknown;
  default?: unknown;
  choices?: readonly string[];
  /** Another flag (by option key) this one cannot be combined with. */
  conflicts?: string;
  complete?: ValueSource;
  /** Phantom: the value type. */
  readonly __value?: V;
}

type Extra = Pick<Flag<unknown>, 'complete' | 'conflicts' | 'choices'>;

/** Flag constructors, each giving the handler's option its type. */
export const flag = {
  bool: (flags: string, description: string, extra: Pick<Extra, 'conflicts'> = {}): Flag<boolean | undefined> => ({ flags, description, ...extra }),
  string: (flags: string, description: string, extra: Extra = {}): Flag<string | undefined> => ({ flags, description, ...extra }),
  required: (flags: string, description: string, extra: Extra = {}): Flag<string> => ({ flags, description, required: true, ...extra }),
  /** Repeatable: `--x a --x b` → ['a', 'b']. */
  list: (flags: string, description: string, extra: Extra & { required?: boolean } = {}): Flag<string[] | undefined> => ({
    flags, description, parse: collect, ...extra,
  }),
  parsed: <T>(flags: string, description: string, parse: (value: string) => T, extra: Extra & { default?: T } = {}): Flag<T | undefined> => ({
    flags, description, parse, ...extra,
  }),
};

export type Flags = Record<string, Flag<unknown>>;
export type FlagValues<F extends Flags> = { [K in keyof F]: F[K] extends Flag<infer V> ? V : never };

interface ArgDecl {
  /** `<uid>`, `[name]`. */
  name: string;
  description: string;
  choices?: readonly string[];
  complete?: ValueSource;
}

/** A handler module: `run(ctx, args, opts, program)`; commander has checked the flags. */
export type Handler<O> = (ctx: Context, args: string[], opts: O, program: Command) => Promise<number | void>;

export interface CommandDecl<F extends Flags = Flags> {
  name: string;
  aliases?: readonly string[];
  args?: readonly ArgDecl[];
  flags?: F;
  /** Adds the paging flags every list command takes (--limit, --page-size …). */
  paging?: boolean;
  help: Help;
  /** More text after the examples of --help. */
  notes?: string;
  /** Imports the handler when the command runs. */
  load?: () => Promise<{ run: Handler<FlagValues<F> & PagingFlags> }>;
  subcommands?: readonly AnyCommand[];
}

/** A declaration with its flag types checked and then erased, so that declarations can be listed together. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- flag types are checked per declaration, then erased to list them together
export type AnyCommand = CommandDecl<any>;

/** Checks a handler's options type against the declared flags (and the flags' keys against commander's). */
export function defineCommand<F extends Flags>(decl: CommandDecl<F>): AnyCommand {
  return decl;
}

/** A `list` verb (alias `ls`, with the paging flags). */
export function defineList<F extends Flags>(decl: Omit<CommandDecl<F>, 'name' | 'aliases' | 'paging'>): AnyCommand {
  return defineCommand({ name: 'list', aliases: ['ls'], paging: true, ...decl });
}

/** A command group (`groups`): help and subcommands, no handler of its own. */
export function defineGroup(name: string, help: Help, subcommands: readonly AnyCommand[]): AnyCommand {
  return { name, help, subcommands };
}

// ---- what build() attaches, for completion, help and the man page ----

const examples = new WeakMap<Command, readonly Example[]>();
const sources = new WeakMap<Option | Argument, ValueSource>();
const runnable = new WeakSet<Command>();
const required = new WeakSet<Option>();

export function examplesOf(cmd: Command): readonly Example[] {
  return examples.get(cmd) ?? [];
}

export function sourceOf(o: Option | Argument): ValueSource | undefined {
  return sources.get(o);
}

/** Whether the flag must be given (declared `required`). */
export function isRequired(o: Option): boolean {
  return required.has(o);
}

/**
 * The required flags `cmd` was run without, all of them: checked here rather than by
 * commander's mandatory options, which stop at the first one missing.
 */
export function missingRequired(cmd: Command): Option[] {
  return cmd.options.filter((o) => required.has(o) && cmd.getOptionValue(o.attributeName()) === undefined);
}

/** Whether the command does something itself (declared with a handler), not only holds subcommands. */
export function isRunnable(cmd: Command): boolean {
  return runnable.has(cmd);
}

function formatExamples(list: readonly Example[]): string {
  return list.map(([note, command]) => `  # ${note}\n  $ ${command}`).join('\n\n');
}

/** Sets summary, description and examples of a command from its help. */
export function applyHelp(cmd: Command, help: Help, notes?: string): Command {
  cmd.summary(help.summary).description(help.description);
  examples.set(cmd, help.examples);
  if (notes) cmd.addHelpText('after', notes);
  cmd.addHelpText('after', `\nExamples:\n${formatExamples(help.examples)}\n`);
  return cmd;
}

export function toOption(f: Flag<unknown>): Option {
  const o = new Option(f.flags, f.description);
  if (f.parse) o.argParser(f.parse as (value: string, previous: unknown) => unknown);
  if (f.choices) o.choices(f.choices);
  if (f.required) required.add(o);
  if (f.default !== undefined) o.default(f.default);
  if (f.conflicts) o.conflicts(f.conflicts);
  if (f.complete) sources.set(o, f.complete);
  return o;
}

/** Runs a loaded handler; main() wraps it (jq, exit code). */
export type Runner = (load: () => Promise<{ run: Handler<never> }>) => (...actionArgs: unknown[]) => Promise<void>;

/** Adds the declared command (and its subcommands) below `parent`. */
export function build(parent: Command, decl: AnyCommand, runner: Runner): Command {
  const cmd = parent.command(decl.name);
  for (const alias of decl.aliases ?? []) cmd.alias(alias);
  for (const a of decl.args ?? []) {
    const arg = new Argument(a.name, a.description);
    if (a.choices) arg.choices(a.choices);
    if (a.complete) sources.set(arg, a.complete);
    cmd.addArgument(arg);
  }
  if (decl.paging) for (const f of Object.values(PAGING_FLAGS)) cmd.addOption(toOption(f));
  for (const f of Object.values((decl.flags ?? {}) as Record<string, Flag<unknown>>)) cmd.addOption(toOption(f));
  applyHelp(cmd, decl.help, decl.notes);
  if (decl.load) {
    cmd.action(runner(decl.load));
    runnable.add(cmd);
  }
  for (const sub of decl.subcommands ?? []) build(cmd, sub, runner);
  return cmd;
}

/** `--advisory-id <id>` → advisoryId (commander's option key). */
export function optionKey(flags: string): string {
  const long = /--([a-z0-9-]+)/.exec(flags)?.[1] ?? '';
  return long.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

// ---- value parsers ----

/** Repeatable flags: `--artifact a --artifact b` → ['a', 'b']. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('must be a positive integer.');
  return n;
}

export function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer.');
  return Number(value);
}

function pageSize(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 200) throw new InvalidArgumentError('must be an integer from 1 to 200.');
  return n;
}

export function parsePort(value: string): number {
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

/** The paging flags every list command takes. */
export const PAGING_FLAGS = {
  limit: flag.parsed('--limit <n>', 'print at most N items (default: all)', positiveInt),
  pageSize: flag.parsed('--page-size <n>', 'items per request, 1-200', pageSize),
  orderBy: flag.string('--order-by <order>', 'sort order: name (the default), "name desc", "created_at desc", uid …'),
  skip: flag.parsed('--skip <n>', 'skip the first N matches', nonNegativeInt),
  pageToken: flag.string('--page-token <token>', 'start from this page token ("" for the first page); with -o json, print the API page {"<items>": […], "nextPageToken": …}'),
};
export type PagingFlags = Partial<FlagValues<typeof PAGING_FLAGS>>;
