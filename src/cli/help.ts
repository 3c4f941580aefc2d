// Where a command stands in the tree, for help, completion and the man page. The help text
// itself is declared with each command (src/cli/command.ts, commands/*/index.ts and the
// resource registry).
import type { Command } from 'commander';

;

/** The path of a command below the root: "groups list"; "" for the root. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The subcommands help lists (commander's Help: hidden ones left out), without its implicit `help` command. */
export function visibleSubcommands(cmd: Command): Command[] {
  return cmd.createHelp().visibleCommands(cmd).filter((c) => cmd.commands.includes(c));
}
