// Test helpers: run the real CLI in-process with captured stdout/stderr and a chosen TTY flag.
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { closeAgent } from '../../src/client/http.js';
import type { TestServer } from './serve.js';
import { tempDir } from './temp.js';
import type { Clock, Env, IO, Prompter } from '../../src/cli/context.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the invocation, in milliseconds. */
  ms: number;
  /** The confirmation questions asked, in order (runners that take no answers leave it out). */
  questions?: string[];
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
  /**
   * The CLI's clock: tests inject sleep and deadline through it. By default the real time
   * with waits between retries skipped (a retried request must not cost a test seconds).
   */
  clock?: Clock;
}

export interface Captured {
  io: IO;
  out: () => string;
  err: () => string;
  /** Resolves with the first match of `re` in stdout as soon as a write makes it appear (no polling, no timer). */
  untilOut: (re: RegExp) => Promise<RegExpExecArray>;
  /** The same on stderr. */
  untilErr: (re: RegExp) => Promise<RegExpExecArray>;
}

export function captureIO(opts: RunOptions = {}): Captured {
  let out = '';
  let err = '';
  const waiters: { stream: 'out' | 'err'; re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  /** Resolves the waiters that the text written so far satisfies. */
  const wake = () => {
    for (const w of [...waiters]) {
      const m = w.re.exec(w.stream === 'out' ? out : err);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  const until = (stream: 'out' | 'err') => (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve) => {
      waiters.push({ stream, re, resolve });
      wake();
    });
  const tty = opts.tty ?? false;
  const io: IO = {
    stdout: { write: (s: string) => ((out += s), wake(), true) },
    stderr: { write: (s: string) => ((err += s), wake(), true) },
    stdin: Readable.from(opts.stdin !== undefined ? [opts.stdin] : []),
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdinIsTTY: tty,
    columns: opts.columns ?? 200,
  };
  return { io, out: () => out, err: () => err, untilOut: until('out'), untilErr: until('err') };
}

const noWaitClock: Clock = { now: () => new Date(), sleep: async () => {} };

/** A runner bound to a base environment (API URL, token, temp config dir). */
export function cli(baseEnv: Env) {
  return async (argv: string[], opts: RunOptions = {}): Promise<RunResult> => {
    const { io, out, err } = captureIO(opts);
    const questions: string[] = [];
    const prompter: Prompter = {
      confirm: async (question) => {
        questions.push(question);
        if (opts.confirm === undefined) throw new Error(`unexpected confirmation prompt: ${question}`);
        return opts.confirm;
      },
      readSecret: async () => (opts.stdin ?? '').trim(),
    };
    const started = performance.now();
    const code = await main(argv, { io, env: { ...baseEnv, ...opts.env }, prompter, clock: opts.clock ?? noWaitClock });
    return { code, stdout: out(), stderr: err(), ms: performance.now() - started, questions };
  };
}

/** Non-empty lines. */
export const lines = (text: string) => text.split('\n').filter((l) => l !== '');

/**
 * A real serve for a whole test file and the CLI pointed at it as the owner (temp config
 * dir); stop() closes the CLI's connections and the server.
 */
export async function serveWithCli(): Promise<{ srv: TestServer; pctl: ReturnType<typeof cli>; stop: () => Promise<void> }> {
  // Loaded here: a test file that runs the CLI against a stub does not load the server.
  const { startTestServer } = await import('./serve.js');
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
