// pctl mcp [--allow-writes]: the API as MCP tools, over stdio, for an agent.
import { defineCommand, flag } from '../../command.js';

export const mcpFlags = {
  allowWrites: flag.bool('--allow-writes', 'also offer the write tools: create, update and delete of every resource that has them, and invite redemption'),
};

export const mcpCommand = defineCommand({
  name: 'mcp',
  flags: mcpFlags,
  help: {
    summary: 'serve the API as MCP tools over stdio, for AI agents',
    description:
      'Serve the API to an AI agent as Model Context Protocol tools over stdin and stdout: for each resource a list (one page, ' +
      'with a page token) and a get; with --allow-writes also create, update and delete, and invite redemption. Calls go through ' +
      "the API of the current profile (or --profile, --api-url) with its token, so the agent may do what that identity's role " +
      'bindings allow, no more. An MCP client starts it; see docs/mcp.md.',
    examples: [
      ['add it to Claude Code, read-only', 'claude mcp add pctl -- pctl mcp'],
      ['against a throwaway serve, writes allowed', 'pctl mcp --profile local --allow-writes'],
    ],
  },
  load: async () => {
    const m = await import('./run.js');
    return { run: (ctx, _args, opts) => m.runMcp(ctx, opts) };
  },
});
