// pctl mcp: the tool set of src/mcp over stdio, calling the API through pctl's client (the
// profile's URL and token, retries with backoff, rate-limit waits). stdout carries only the
// protocol; it runs until the client closes stdin.
import type { Readable, Writable } from 'node:stream';
import type { Context } from '../../context.js';
import type { FlagValues } from '../../command.js';
import type { mcpFlags } from './index.js';

export async function runMcp(ctx: Context, opts: FlagValues<typeof mcpFlags>): Promise<number> {
  // Connection problems (no API URL, an unknown profile) fail here, before the protocol starts.
  const client = await ctx.client();
  const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
    import('../../../mcp/server.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const server = await createMcpServer({
    writes: opts.allowWrites === true,
    caller: () => (r) => client.request(r.method, r.path, { ...(r.query ? { query: r.query } : {}), ...(r.body !== undefined ? { body: r.body } : {}) }),
  });
  const stdin = ctx.io.stdin as Readable;
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    // The SDK's stdio transport does not watch for the end of its input: the client has gone.
    stdin.once('end', () => void server.close());
  });
  await server.connect(new StdioServerTransport(stdin, ctx.io.stdout as unknown as Writable));
  await closed;
  return 0;
}
