// man/pctl.1, generated from the command tree (summaries, descriptions, flags, arguments)
// and the examples in help.ts: the same sources as `pctl … --help`.
import { allCommands, HELP_FLAG, type CommandSpec, type FlagSpec } from './completion/spec.js';

/** Escapes text for roff: backslashes, minus signs, quotes, and a leading control character. */
export function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/'/g, '\\(aq')
    .replace(/`/g, '\\(ga')
    .replace(/"/g, '\\(dq')
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
    .split('\n')
    .map((line) => (/^[.']/.test(line) || line.startsWith('\\(aq') ? `\\&${line}` : line))
    .join('\n');
}

const bold = (s: string) => `\\fB${roff(s)}\\fR`;
const italic = (s: string) => `\\fI${roff(s)}\\fR`;

function flagLine(f: FlagSpec): string {
  const names = [f.short, f.long].filter((n): n is string => Boolean(n)).map(bold).join(', ');
  const value = f.valueName ? ` ${italic(f.valueName.replace(/^[<[]|[>\]]$/g, ''))}` : '';
  return names + value;
}

/** A flag's description as a sentence, with its choices, whether it is required and its default. */
export function flagText(f: FlagSpec): string {
  let text = f.description.replace(/\s*\(required\)$/, '');
  if (f.value?.kind === 'choice') text += `; one of: ${f.value.values.join(', ')}`;
  if (f.required) text += ' (required)';
  if (f.defaultValue !== undefined) text += ` (default: ${f.defaultValue})`;
  return text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');
}

function flagBody(f: FlagSpec): string {
  return roff(flagText(f));
}

function flagList(flags: readonly FlagSpec[]): string[] {
  return flags.flatMap((f) => ['.TP', flagLine(f), flagBody(f)]);
}

function synopsis(c: CommandSpec): string {
  const parts = [bold(`pctl ${c.path}`.trim())];
  if (c.subcommands.length && !c.runnable) parts.push(italic('command'));
  if (c.flags.length) parts.push(`[${italic('options')}]`);
  for (const a of c.args) {
    const name = italic(a.name) + (a.variadic ? '\\ .\\|.\\|.' : '');
    parts.push(a.required ? name : `[${name}]`);
  }
  return parts.join(' ');
}

function examples(c: CommandSpec): string[] {
  if (!c.examples.length) return [];
  const out = ['.PP', 'Examples:', '.PP', '.RS 4', '.nf'];
  c.examples.forEach(([note, command], i) => {
    if (i) out.push('');
    out.push(roff(`# ${note}`), roff(`$ ${command}`));
  });
  out.push('.fi', '.RE');
  return out;
}

export function manPage(root: CommandSpec, version: string): string {
  const out: string[] = [];
  out.push(
    '.\\" Generated from the command tree by `npm run gen`; do not edit.',
    `.TH PCTL 1 "" "pctl ${roff(version)}" "User Commands"`,
    '.nh',
    '.ad l',
    '.SH NAME',
    `pctl \\- ${roff(root.summary.replace(/^./, (c) => c.toLowerCase()))}`,
    '.SH SYNOPSIS',
    `${bold('pctl')} ${italic('command')} [${italic('subcommand')}] [${italic('options')}] [${italic('arguments')}]`,
    '.br',
    `${bold('pctl completion')} ${italic('bash')}|${italic('zsh')}|${italic('fish')}`,
    '.SH DESCRIPTION',
    roff(root.description),
    '.PP',
    roff('Run `pctl COMMAND --help` for the options and examples of a command. Without a command, pctl prints the list of commands.'),
    '.SH COMMANDS',
  );
  for (const c of allCommands(root).slice(1)) {
    out.push(`.SS ${synopsis(c)}`);
    out.push(roff(c.description));
    if (c.aliases.length) out.push('.PP', `Aliases: ${c.aliases.map(bold).join(', ')}.`);
    if (c.subcommands.length) {
      out.push('.PP', `Commands: ${c.subcommands.map((s) => bold(s.name)).join(', ')}.`);
    }
    if (c.args.length) {
      out.push('.PP', 'Arguments:', '.RS 4');
      for (const a of c.args) out.push('.TP', italic(a.name), roff(a.description || a.name));
      out.push('.RE');
    }
    if (c.flags.length) {
      out.push('.PP', 'Options:', '.RS 4', ...flagList(c.flags), '.RE');
    }
    out.push(...examples(c));
  }
  out.push(
    '.SH GLOBAL OPTIONS',
    roff('These options are accepted by every command, before or after the command name.'),
    ...flagList([...root.flags, HELP_FLAG]),
    '.SH ENVIRONMENT',
    ...env(),
    '.SH EXIT STATUS',
    ...exitCodes(),
    '.SH FILES',
    '.TP',
    italic('$PCTL_CONFIG_DIR/config.json'),
    roff(
      "Profiles (API URL and token) and the current profile. Without PCTL_CONFIG_DIR the platform's config directory for pctl is used " +
        '(on Linux $XDG_CONFIG_HOME/pctl, by default ~/.config/pctl).',
    ),
    '.TP',
    italic('DATA_DIR/owner.token'),
    roff("The owner's bearer token, written by the first start of pctl serve on an empty data dir (mode 0600)."),
    '.TP',
    italic('completions/pctl.bash, completions/_pctl, completions/pctl.fish'),
    roff('Shell completion scripts, also printed by pctl completion bash|zsh|fish.'),
    '.SH EXAMPLES',
    ...allCommands(root).flatMap((c) => examplesSection(c)),
    '.SH SEE ALSO',
    `${bold('jq')}(1), ${bold('curl')}(1)`,
    '.PP',
    roff('The README of pctl and its docs/ directory: the command reference, the local server (pctl serve), its seed files and the rest.'),
    '',
  );
  return out.join('\n');
}

/** The EXAMPLES section: the root's examples, then the first example of each resource group. */
function examplesSection(c: CommandSpec): string[] {
  if (!c.examples.length || c.path.includes(' ')) return [];
  const picks = c.path === '' ? c.examples : c.examples.slice(0, 1);
  return picks.flatMap(([note, command]) => ['.PP', roff(`${note.charAt(0).toUpperCase()}${note.slice(1)}:`), '.PP', '.RS 4', '.nf', roff(`$ ${command}`), '.fi', '.RE']);
}

/** The environment variables pctl reads (the man page and docs/commands.md list them). */
export const ENVIRONMENT: readonly [string, string][] = [
  ['PCTL_API_URL', 'Base URL of the API; overrides the profile (and is overridden by --api-url).'],
  ['PCTL_TOKEN', 'Bearer token; overrides the profile. There is no flag for it: flags leak into shell history.'],
  ['PCTL_PROFILE', 'The saved profile to use (overridden by --profile).'],
  ['PCTL_CONFIG_DIR', "Where the profiles are saved (default: the platform's config directory for pctl)."],
  ['PCTL_DATA_DIR', 'The data directory of pctl serve when --data is not given.'],
  ['PCTL_DEBUG', 'With 1 (or any true value), trace HTTP requests to stderr, tokens masked; with api, the bodies too.'],
  ['NO_COLOR', 'When set and not empty, no ANSI color (like --no-color). Color is also off when stdout is not a terminal.'],
];

/** pctl's exit codes. */
export const EXIT_CODES: readonly [string, string][] = [
  ['0', 'Success.'],
  ['1', 'The request failed: an API error other than below, a network error, or a server error.'],
  ['2', 'Usage error: bad flags or arguments, detected before any request is sent.'],
  ['3', 'Not found.'],
  ['4', 'Authentication or permission denied.'],
];

function env(): string[] {
  return ENVIRONMENT.flatMap(([name, text]) => ['.TP', bold(name), roff(text)]);
}

function exitCodes(): string[] {
  return EXIT_CODES.flatMap(([code, text]) => ['.TP', bold(code), roff(text)]);
}
