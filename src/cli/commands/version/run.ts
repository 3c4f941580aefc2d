// pctl version: the client's version, then the server's from GET /healthz (unauthenticated,
// so no token is sent, and an expired one does not matter). A short timeout: a version
// command must not hang on a server that is away.
import { resolveConnection } from '../../connect.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Command } from 'commander';

/** How long the server gets to answer, at most (less when --timeout says so). */
const HEALTH_TIMEOUT_MS = 3000;

export interface VersionReport {
  client: { version: string; node: string };
  /** Absent without an API URL; `version` when the server reports one, else `problem`. */
  server?: { url: string; version?: string; problem?: 'unreachable' | 'not reported' };
}

export async function run(ctx: Context, _args: string[], _opts: unknown, program: Command): Promise<number> {
  // The version commander answers -V with (main.ts reads it from package.json).
  const report: VersionReport = { client: { version: program.version() ?? '0.0.0', node: process.version } };
  const apiUrl = await configuredApiUrl(ctx);
  if (apiUrl) report.server = { url: apiUrl, ...(await serverVersion(apiUrl, Math.min(ctx.globals.timeoutMs, HEALTH_TIMEOUT_MS))) };
  const mode = ctx.globals.output;
  if (mode === 'json' || mode === 'yaml' || mode === 'ndjson') {
    const text = mode === 'yaml' ? (await import('yaml')).default.stringify(report) : `${JSON.stringify(report, null, mode === 'json' ? 2 : 0)}\n`;
    ctx.io.stdout.write(text);
    return 0;
  }
  const lines = [`Client: pctl ${report.client.version} (Node ${report.client.node})`];
  if (report.server) lines.push(`Server: ${report.server.version ? `pctl serve ${report.server.version}` : report.server.problem} at ${report.server.url}`);
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** The API URL flags, environment or profile name; undefined where none is configured. */
async function configuredApiUrl(ctx: Context): Promise<string | undefined> {
  try {
    return (await resolveConnection(ctx)).apiUrl.replace(/\/+$/, '');
  } catch (err) {
    if (err instanceof UsageError && /no API URL configured/.test(err.message)) return undefined;
    throw err;
  }
}

async function serverVersion(apiUrl: string, timeoutMs: number): Promise<{ version: string } | { problem: 'unreachable' | 'not reported' }> {
  let res: Response;
  try {
    res = await fetch(`${apiUrl}/healthz`, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  } catch {
    return { problem: 'unreachable' };
  }
  // A server that is starting (503) still says its version.
  const body = (await res.json().catch(() => undefined)) as { version?: unknown } | undefined;
  return typeof body?.version === 'string' && body.version ? { version: body.version } : { problem: 'not reported' };
}
