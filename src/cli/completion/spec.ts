// The command tree as plain data, read from commander: what the completion scripts, the man
// page and `pctl __complete` all walk. Which flags and arguments take live values (uids and
// names from the API) or files is declared with each flag and argument (src/cli/command.ts).
import type { Argument, Command, Option } from 'commander';
import { examplesOf, isRequired, isRunnable, sourceOf, type Example, type ValueSource } from '../command.js';
import { commandPath, visibleSubcommands } from '../help.js';

/**
 * What a value is completed with: `live:<noun>` asks the API (through `pctl __complete`) for
 * a registry resource (by its plural, "roleBindings") or the profiles, `choice` offers the
 * listed values, `file`/`dir` the file system, `value` nothing. Declared with each flag and
 * argument (src/cli/command.ts).
 */
export type LiveNoun = string;
export type ValueKind = { kind: 'live'; noun: LiveNoun } | { kind: 'choice'; values: string[] } | { kind: 'file' } | { kind: 'dir' } | { kind: 'value' };

function valueKind(source: ValueSource | undefined): ValueKind {
  if (source === undefined) return { kind: 'value' };
  if (typeof source === 'string') return { kind: source };
  return { kind: 'live', noun: source.live };
}

export interface FlagSpec {
  /** `--output`, or undefined for a short-only flag. */
  long?: string;
  /** `-o`. */
  short?: string;
  /** As declared: `-o, --output <format>`. */
  flags: string;
  description: string;
  /** Undefined for a boolean flag. */
  value?: ValueKind;
  /** `<format>` or `[value]`. */
  valueName?: string;
  required: boolean;
  defaultValue?: string;
  repeatable: boolean;
}

interface ArgSpec {
  name: string;
  description: string;
  required: boolean;
  variadic: boolean;
  value: ValueKind;
}

export interface CommandSpec {
  name: string;
  /** Space-separated names from the root: "groups list"; "" for pctl itself. */
  path: string;
  aliases: string[];
  summary: string;
  description: string;
  flags: FlagSpec[];
  args: ArgSpec[];
  subcommands: CommandSpec[];
  examples: readonly Example[];
  /** Whether the command does something itself (a group such as `groups` only has subcommands). */
  runnable: boolean;
}

export const HELP_FLAG: FlagSpec = {
  long: '--help',
  short: '-h',
  flags: '-h, --help',
  description: 'show help for the command',
  required: false,
  repeatable: false,
};

function flagSpec(o: Option): FlagSpec {
  const takesValue = o.required || o.optional;
  let value: ValueKind | undefined;
  if (takesValue) {
    value = o.argChoices ? { kind: 'choice', values: [...o.argChoices] } : valueKind(sourceOf(o));
  }
  const spec: FlagSpec = {
    flags: o.flags,
    description: o.description,
    required: isRequired(o),
    repeatable: o.variadic || /repeatable/.test(o.description),
  };
  if (o.long) spec.long = o.long;
  if (o.short) spec.short = o.short;
  if (value) spec.value = value;
  const valueName = /([<[][^>\]]*[>\]])/.exec(o.flags)?.[1];
  if (valueName) spec.valueName = valueName;
  if (o.defaultValue !== undefined && !o.negate && typeof o.defaultValue !== 'boolean' && !Array.isArray(o.defaultValue)) {
    spec.defaultValue = String(o.defaultValue);
  }
  return spec;
}

function argSpec(a: Argument): ArgSpec {
  const value: ValueKind = a.argChoices ? { kind: 'choice', values: [...a.argChoices] } : valueKind(sourceOf(a));
  return { name: a.name(), description: a.description, required: a.required, variadic: a.variadic, value };
}

/** The visible tree below (and including) cmd. */
export function commandSpec(cmd: Command): CommandSpec {
  const path = commandPath(cmd);
  return {
    name: cmd.name(),
    path,
    aliases: cmd.aliases(),
    summary: cmd.summary() || cmd.description(),
    description: cmd.description(),
    flags: cmd.options.filter((o) => !o.hidden).map(flagSpec),
    args: cmd.registeredArguments.map(argSpec),
    examples: examplesOf(cmd),
    subcommands: visibleSubcommands(cmd).map(commandSpec),
    runnable: isRunnable(cmd),
  };
}

/** Every command, depth first, the root first. */
export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.subcommands.flatMap(allCommands)];
}

/** The flags a command accepts: its own, then its ancestors' (global options work anywhere), then --help. */
export function flagsOf(root: CommandSpec, path: string): FlagSpec[] {
  const chain: CommandSpec[] = [root];
  let cur = root;
  for (const name of path ? path.split(' ') : []) {
    const next = cur.subcommands.find((c) => c.name === name);
    if (!next) break;
    chain.push((cur = next));
  }
  const out: FlagSpec[] = [];
  for (const c of chain.reverse()) out.push(...c.flags);
  out.push(HELP_FLAG);
  return out;
}

export function findFlag(flags: readonly FlagSpec[], word: string): FlagSpec | undefined {
  return flags.find((f) => f.long === word || f.short === word);
}

function findSubcommand(cmd: CommandSpec, word: string): CommandSpec | undefined {
  return cmd.subcommands.find((c) => c.name === word || c.aliases.includes(word));
}

/** Where the word being completed stands: walks the words before it like commander would. */
export interface Position {
  command: CommandSpec;
  /** Positional arguments seen after the command's name. */
  positionals: number;
  /** Set when the current word is the value of this flag. */
  valueFor?: FlagSpec;
  /** Values given on the line for flags, by long name (`--api-url`, `--profile`). */
  given: Record<string, string>;
}

export function locate(root: CommandSpec, before: readonly string[]): Position {
  let command = root;
  let positionals = 0;
  let dashdash = false;
  const given: Record<string, string> = {};
  for (let i = 0; i < before.length; i++) {
    const w = before[i]!;
    if (!dashdash && w === '--') {
      dashdash = true;
      continue;
    }
    if (!dashdash && w.startsWith('-') && w !== '-') {
      const eq = w.indexOf('=');
      const flag = findFlag(flagsOf(root, command.path), eq > 0 ? w.slice(0, eq) : w);
      if (!flag?.value) continue;
      const key = flag.long ?? flag.short!;
      if (eq > 0) {
        given[key] = w.slice(eq + 1);
        continue;
      }
      if (i + 1 === before.length) return { command, positionals, valueFor: flag, given };
      given[key] = before[++i]!;
      continue;
    }
    const sub = positionals === 0 && !dashdash ? findSubcommand(command, w) : undefined;
    if (sub) command = sub;
    else positionals++;
  }
  return { command, positionals, given };
}

/** What the current word should be completed with, or undefined when nothing is known. */
export function valueKindAt(pos: Position): ValueKind | undefined {
  if (pos.valueFor) return pos.valueFor.value;
  const args = pos.command.args;
  if (!args.length) return undefined;
  const arg = args[Math.min(pos.positionals, args.length - 1)]!;
  if (pos.positionals >= args.length && !arg.variadic) return undefined;
  return arg.value;
}
