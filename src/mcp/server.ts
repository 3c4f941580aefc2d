// An MCP server (the official SDK's) offering the tool set of tools.ts over an ApiCaller. Both
// surfaces make theirs here and only bring the transport: `pctl mcp` stdio, serve's /mcp
// Streamable HTTP. The SDK is imported on first use, so neither pays for it before.
import { readFileSync } from 'node:fs';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { callTool, describeTool, toolSet, type ApiCaller } from './tools.js';

export type { ApiCaller,  } from './tools.js';

/** Who sent a tool call, as an HTTP transport learned it (stdio has none: the process has its own token). */
export interface CallerAuth {
  /** The bearer token of the HTTP request that carried the call. */
  token: string;
  extra?: Record<string, unknown>;
}

export interface McpServerOptions {
  /** Offer the write tools (create, update, delete, invite redemption). */
  writes: boolean;
  /** How a tool call reaches the API, given who sent it. */
  caller: (auth: CallerAuth | undefined) => ApiCaller;
}

const INSTRUCTIONS =
  'Tools for the Platform Management API v2: groups (an organization is the root group), identities, roles, role bindings ' +
  '(who holds which role in which group), identity providers, invites, account associations, the registry (repos, tags), ' +
  'advisories and libraries. Lists return one page: pass nextPageToken back as page_token for the next. Wherever a group, ' +
  'identity, repo or role is expected, its name works as well as its uid; a group also by its name path ("acme/platform"). ' +
  'Pass fields to get only the fields you need. ' +
  'What you may see and change is decided by the role bindings of the identity whose token this server uses.';

let version: string | undefined;

/** pctl's version (package.json, two levels up from src/mcp, dist/mcp and dist/bundle alike). */
function pctlVersion(): string {
  return (version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
}

export async function createMcpServer(opts: McpServerOptions): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const tools = toolSet(opts.writes);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed = { tools: tools.map(describeTool) };
  const server = new Server({ name: 'pctl', title: 'pctl: Platform Management API', version: pctlVersion() }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => listed);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name);
    // A tool that is not offered (a write tool without writes allowed) is the protocol's "unknown tool".
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}${opts.writes ? '' : ' (write tools are offered only when writes are allowed)'}`);
    return callTool(tool, request.params.arguments, opts.caller(extra.authInfo));
  });
  return server;
}
