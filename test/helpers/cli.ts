// Test helpers: run the real CLI in-process with captured stdout/stderr and a chosen TTY flag.
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { closeAgent } from '../../src/client/http.js';
import { startTestServer, tempDir, type TestServer } from './serve.js';
import type { Env, IO, Prompter } from '../../src/cli/context.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the invocation, in milliseconds. */
  ms: number;
}

export interface RunOptions {
  /** stdin, stdout and stderr are all terminals (default false: a pipe, as in scripts). */
  tty?: boolean;
  env?: Env;
  columns?: number;
  /** Answers for delete confirmations; a test that gets asked without one fails. */
  confirm?: boolean;
  /** What stdin holds (for `config set NAME token`). */
  stdin?: string;
}

export function captureIO(opts: RunOptions = {}): { io: IO; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const tty = opts.tty ?? false;
  const io: IO = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from(opts.stdin !== undefined ? [opts.stdin] : []),
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdinIsTTY: tty,
    columns: opts.columns ?? 200,
  };
  return { io, out: () => out, err: () => err };
}

/** A runner bound to a base environment (API URL, token, temp config dir). */
export function cli(baseEnv: Env) {
  return async (argv: string[], opts: RunOptions = {}): Promise<RunResult> => {
    const { io, out, err } = captureIO(opts);
    const prompter: Prompter = {
      confirm: async (question) => {
        if (opts.confirm === undefined) throw new Error(`unexpected confirmation prompt: ${question}`);
        return opts.confirm;
      },
      readSecret: async () => (opts.stdin ?? '').trim(),
    };
    const started = performance.now();
    const code = await main(argv, { io, env: { ...baseEnv, ...opts.env }, prompter });
    return { code, stdout: out(), stderr: err(), ms: performance.now() - started };
  };
}

/** Non-empty lines. */
export const lines = (text: string) => text.split('\n').filter((l) => l !== '');

/**
 * A real serve for a whole test file and the CLI pointed at it as the owner (temp config
 * dir); stop() closes the CLI's connections and the server.
 */
export async function serveWithCli(): Promise<{ srv: TestServer; pctl: ReturnType<typeof cli>; stop: () => Promise<void> }> {
  const srv = await startTestServer();
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const stop = async () => {
    await closeAgent();
    await srv.dispose();
  };
  return { srv, pctl, stop };
}

/** Runs pctl and returns its stdout, failing loudly on a non-zero exit (for setup steps). */
export async function mustSucceed(pctl: ReturnType<typeof cli>, argv: string[]): Promise<string> {
  const r = await pctl(argv);
  if (r.code !== 0) throw new Error(`pctl ${argv.join(' ')} → ${r.code}: ${r.stderr}`);
  return r.stdout;
}
