// The Context every command receives: streams, environment, config, a lazily made API
// client, a clock and a prompter. Commands never reach for process.* or globals, so
// tests can run them in-process with captured output and a TTY flag of their choice.
//
// This module stays tiny and free of heavy imports: it is loaded on every invocation.
import { isatty } from 'node:tty';
import type { ApiClient } from '../client/index.js';
import type { ConfigStore } from '../config/index.js';
import type { OutStream, OutputFormat } from '../output/target.js';

export { colorEnabled, OUTPUT_FORMATS, type OutputFormat, type OutStream } from '../output/target.js';

export interface IO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Terminal width, used to truncate table cells on a TTY. */
  columns: number;
  /**
   * Whether ANSI color is used. Left undefined, main() decides: on only when stdout is a
   * TTY, and off with NO_COLOR or --no-color. A value set here still yields to those two.
   */
  color?: boolean;
}

export type Env = Record<string, string | undefined>;

export interface Clock {
  now(): Date;
  /** Waits between retries; tests inject one that returns at once (default: setTimeout). */
  sleep?(ms: number): Promise<void>;
  /**
   * The signal that ends a wait on the network `ms` from now: each request attempt, the one
   * lookup of a completion (default: AbortSignal.timeout). Tests inject one they abort on an
   * event (the stub has the request), so no test races a timer on a loaded machine.
   */
  deadline?(ms: number): AbortSignal;
}

/** The clock's deadline signal for `ms`, or AbortSignal.timeout(ms) when it has none. */
export function deadlineSignal(clock: Clock, ms: number): AbortSignal {
  return clock.deadline ? clock.deadline(ms) : AbortSignal.timeout(ms);
}

export interface Prompter {
  /** Asks a yes/no question; resolves false on anything but an explicit yes. */
  confirm(question: string): Promise<boolean>;
  /** Reads one line (or all of stdin when it is not a TTY), for secrets such as tokens. */
  readSecret(question: string): Promise<string>;
}


/** Options every command accepts, after parsing (flags) and env overrides. */
export interface GlobalOptions {
  output?: OutputFormat;
  profile?: string;
  apiUrl?: string;
  debug: boolean;
  /** PCTL_DEBUG=api: the trace shows request and response bodies too (tokens masked). */
  debugBodies: boolean;
  /** --jq EXPR: the JSON output filtered through jq. */
  jq?: string;
  /** --json [FIELDS]: true without a value (list the fields), else the comma-separated fields. */
  json?: true | string;
  /** The fields --json selects (set once they are checked): JSON output holds only these. */
  fields?: string[];
  /** Retries of a failed idempotent request (--retries; 0 disables): at most retries + 1 attempts. */
  retries: number;
  /** False with --no-color or NO_COLOR. */
  color: boolean;
  yes: boolean;
  /** Connect + request timeout, in milliseconds. */
  timeoutMs: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
/** 3 retries: at most 4 attempts. */
export const DEFAULT_RETRIES = 3;

export interface Context {
  io: IO;
  env: Env;
  clock: Clock;
  prompter: Prompter;
  /** Set by main() once the command line is parsed. */
  globals: GlobalOptions;
  /** The command line as given (after `pctl`), for hints that repeat it. */
  argv: readonly string[];
  /** The profile store (loads `conf` on first use). */
  config(): Promise<ConfigStore>;
  /** The API client for this invocation, made on first use from flags > env > profile. */
  client(): Promise<ApiClient>;
}

export function defaultGlobals(env: Env): GlobalOptions {
  return {
    debug: isTruthy(env.PCTL_DEBUG),
    debugBodies: isDebugApi(env.PCTL_DEBUG),
    retries: DEFAULT_RETRIES,
    color: !('NO_COLOR' in env && env.NO_COLOR !== undefined && env.NO_COLOR !== ''),
    yes: false,
    timeoutMs: DEFAULT_TIMEOUT_MS,
  };
}

/** PCTL_DEBUG=api (bodies too); any other true value traces lines and headers only. */
export function isDebugApi(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'api';
}

export function isTruthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}


function processIO(): IO {
  // `pctl groups list | head -1`: once the reader is gone, stop quietly instead of crashing on EPIPE.
  if (process.stdout.listenerCount('error') === 0) {
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // process.stdin makes its stream (a socket, a tty) on first use: only commands that read it pay.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: isatty(0),
    columns: process.stdout.columns || Number(process.env.COLUMNS) || 80,
  };
}

/** Builds a full Context from the parts a caller (a test, or bin/pctl.js) supplies. */
export function createContext(partial: Partial<Context> = {}): Context {
  const io = partial.io ?? processIO();
  const env = partial.env ?? process.env;
  let configPromise: Promise<ConfigStore> | undefined;
  let clientPromise: Promise<ApiClient> | undefined;
  const ctx: Context = {
    io,
    env,
    clock: partial.clock ?? { now: () => new Date() },
    prompter: partial.prompter ?? streamPrompter(io),
    globals: partial.globals ?? defaultGlobals(env),
    argv: partial.argv ?? [],
    config:
      partial.config ??
      (() =>
        (configPromise ??= import('../config/index.js').then((m) => m.openConfig({ configDir: env.PCTL_CONFIG_DIR })))),
    client:
      partial.client ??
      (() => (clientPromise ??= import('./connect.js').then((m) => m.connect(ctx)))),
  };
  return ctx;
}

/** A prompter on the context's own streams: questions go to stderr, answers come from stdin. */
function streamPrompter(io: IO): Prompter {
  return {
    async confirm(question) {
      io.stderr.write(`${question} [y/N] `);
      const answer = (await readLine(io.stdin)).trim().toLowerCase();
      return answer === 'y' || answer === 'yes';
    },
    async readSecret(question) {
      if (!io.stdinIsTTY) return (await readAll(io.stdin)).trim();
      io.stderr.write(`${question}: `);
      const text = await readHidden(io.stdin);
      io.stderr.write('\n');
      return text.trim();
    },
  };
}

function readLine(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let buffered = '';
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString();
      const nl = buffered.indexOf('\n');
      if (nl >= 0) finish(buffered.slice(0, nl));
    };
    const onEnd = () => finish(buffered);
    const finish = (line: string) => {
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      stdin.pause();
      resolve(line);
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}

/** A line typed at a terminal, not echoed (a token must not end up in the scrollback). */
function readHidden(stdin: NodeJS.ReadableStream): Promise<string> {
  const tty = stdin as NodeJS.ReadStream;
  if (typeof tty.setRawMode !== 'function') return readLine(stdin);
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (err?: Error) => {
      tty.removeListener('data', onData);
      tty.setRawMode(false);
      tty.pause();
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(new Error('interrupted'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    tty.setRawMode(true);
    tty.on('data', onData);
    tty.resume();
  });
}

async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += chunk.toString();
  return text;
}
