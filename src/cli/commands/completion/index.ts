// pctl completion bash|zsh|fish
import { defineCommand } from '../../command.js';

export const completionCommand = defineCommand({
  name: 'completion',
  args: [{ name: '<shell>', description: 'bash, zsh or fish', choices: ['bash', 'zsh', 'fish'] }],
  help: {
    summary: 'print the shell completion script for bash, zsh or fish',
    description:
      'Print a shell completion script. It completes commands, flags and their values, and asks the configured API (through ' +
      'the hidden `pctl __complete`, with a short timeout) for group, repo, identity and role names and uids.',
    examples: [
      ['bash, for this shell', 'source <(pctl completion bash)'],
      ['zsh, installed in a directory on $fpath', 'pctl completion zsh > "${fpath[1]}/_pctl"'],
      ['fish', 'pctl completion fish > ~/.config/fish/completions/pctl.fish'],
    ],
  },
  load: async () => {
    const m = await import('../../completion/scripts.js');
    return { run: (ctx, [shell], _opts, program) => m.runCompletion(ctx, shell as 'bash' | 'zsh' | 'fish', program) };
  },
});
