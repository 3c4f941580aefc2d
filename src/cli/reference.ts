// docs/commands.md, generated from the command tree like the man page (src/cli/man.ts): every
// command with its description, arguments, options and examples, the global options, the
// environment and the exit codes. `npm run gen` writes it; test/docs.test.ts fails when stale.
import { allCommands, HELP_FLAG, type CommandSpec, type FlagSpec } from './completion/spec.js';
import { ENVIRONMENT, EXIT_CODES, flagText } from './man.js';

/** Text for a Markdown table cell: pipes escaped, on one line. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

function flagName(f: FlagSpec): string {
  return `\`${[f.short, f.long].filter(Boolean).join(', ')}${f.valueName ? ` ${f.valueName}` : ''}\``;
}

function flagTable(flags: readonly FlagSpec[]): string[] {
  return ['| option | |', '|---|---|', ...flags.map((f) => `| ${cell(flagName(f))} | ${cell(flagText(f))} |`)];
}

function usage(c: CommandSpec): string {
  const parts = [`pctl ${c.path}`];
  if (c.subcommands.length && !c.runnable) parts.push('COMMAND');
  if (c.flags.length) parts.push('[options]');
  for (const a of c.args) {
    const name = a.name.toUpperCase() + (a.variadic ? '…' : '');
    parts.push(a.required ? name : `[${name}]`);
  }
  return parts.join(' ');
}

/** A heading's GitHub anchor: lower case, spaces to dashes, other punctuation dropped. */
function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
}

function section(c: CommandSpec): string[] {
  const depth = c.path.split(' ').length;
  const out = [`${depth === 1 ? '##' : '###'} pctl ${c.path}`, '', '```', usage(c), '```', '', c.description, ''];
  if (c.aliases.length) out.push(`Aliases: ${c.aliases.map((a) => `\`${a}\``).join(', ')}.`, '');
  if (c.subcommands.length) {
    out.push(`Commands: ${c.subcommands.map((s) => `[${s.name}](#${anchor(`pctl ${s.path}`)})`).join(', ')}.`, '');
  }
  if (c.args.length) {
    out.push('| argument | |', '|---|---|', ...c.args.map((a) => `| \`${a.name.toUpperCase()}\` | ${cell(a.description || a.name)} |`), '');
  }
  if (c.flags.length) out.push(...flagTable(c.flags), '');
  if (c.examples.length) {
    out.push('```sh');
    c.examples.forEach(([note, command], i) => out.push(...(i ? [''] : []), `# ${note}`, command));
    out.push('```', '');
  }
  return out;
}

export function commandReference(root: CommandSpec): string {
  const commands = allCommands(root).slice(1);
  const out = [
    '# Command reference',
    '',
    '<!-- Generated from the command tree by `npm run gen`; do not edit. -->',
    '',
    root.description,
    '',
    '`pctl COMMAND --help` prints the same for one command. The global options work with every command.',
    '',
    ...root.subcommands.map((c) => `- [pctl ${c.path}](#${anchor(`pctl ${c.path}`)}): ${c.summary}`),
    '',
    '## Global options',
    '',
    ...flagTable([...root.flags, HELP_FLAG]),
    '',
    ...commands.flatMap(section),
    '## Environment',
    '',
    '| variable | |',
    '|---|---|',
    ...ENVIRONMENT.map(([name, text]) => `| \`${name}\` | ${cell(text)} |`),
    '',
    '## Exit codes',
    '',
    '| code | |',
    '|---|---|',
    ...EXIT_CODES.map(([code, text]) => `| ${code} | ${cell(text)} |`),
    '',
  ];
  return out.join('\n');
}
