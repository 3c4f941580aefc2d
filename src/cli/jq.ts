// `--jq EXPR`: the command's JSON output, filtered through real jq (jq 1.7 compiled to
// WebAssembly, the jq-web package). Loaded only when --jq is given.
//
//   - the expression is compiled before the command runs: a bad one exits 2 before any request
//   - the command prints JSON (as with -o json) into a buffer; jq reads it like stdin
//   - strings print raw, as `jq -r` and `gh --jq` do, so `.[].name` gives one name per line
//   - other values are indented on a terminal (colored unless NO_COLOR / --no-color), and one
//     compact JSON document per line in a pipe (like gh), so `--jq '.[]'` yields NDJSON
//   - a filter that fails on the data (`.foo` of an array) exits 1 with jq's message
import type { Context, IO, OutStream } from './context.js';
import { colorEnabled } from './context.js';
import { UsageError } from './errors.js';
import { write } from '../output/print.js';

interface Engine {
  raw(json: string, filter: string, flags?: string[]): string | undefined;
}

interface JqFailure {
  exitCode?: number;
  stderr?: string;
  message?: string;
}

/** jq failed on the data (runtime error): exit 1, the request itself went fine. */
class JqRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JqRuntimeError';
  }
}

let enginePromise: Promise<Engine> | undefined;

function engine(): Promise<Engine> {
  enginePromise ??= import('jq-web').then((m) => {
    const exported = (m as unknown as { default: Promise<Engine> | Engine }).default;
    return exported;
  });
  return enginePromise;
}

/**
 * Runs jq; resolves to what it printed (undefined when nothing), throws the failure. jq-web
 * leaves its exit code in process.exitCode, which is put back here: a run leaves no trace on the
 * process. What jq writes to stderr on success (`debug`, `stderr`) jq-web prints itself, through
 * console.warn as `stderr: …`: it has no public way to hand it over.
 */
async function jq(input: string, filter: string, flags: string[]): Promise<string | undefined> {
  const e = await engine();
  const exitCode = process.exitCode;
  try {
    return e.raw(input, filter, flags);
  } finally {
    process.exitCode = exitCode;
  }
}

function failureText(err: unknown): string {
  const f = err as JqFailure;
  const text = f.stderr ?? (f.message ?? String(err)).replace(/^Non-zero exit code: \d+\n?/, '');
  return text.replace(/\(at inputString:(\d+)\)/g, '(at <stdout>:$1)');
}

/** `jq: error: …` lines, without the program echo and the `jq: N compile errors` summary. */
function errorLines(text: string): string[] {
  const lines = text.split('\n').filter((l) => /^jq: (error|parse error)/.test(l));
  return (lines.length ? lines : [text.trim()]).map((l) => l.replace(/^jq: error:\s*/, '').replace(/:\s*$/, ''));
}

/** Throws a UsageError (exit 2) with jq's message when the expression does not compile. Sends no request. */
async function compileJq(filter: string): Promise<void> {
  try {
    // `empty | (…)` compiles the whole expression and runs none of it (an endless filter cannot hang us).
    await jq('null', `empty | (\n${filter}\n)`, ['-n']);
    return;
  } catch (err) {
    if ((err as JqFailure).exitCode !== 3) return;
  }
  // It did not compile: ask jq about the expression as written, for its own line numbers.
  // A program that fails to compile never runs, so this is just as safe.
  try {
    await jq('null', filter, ['-n']);
  } catch (err) {
    if ((err as JqFailure).exitCode !== 3) return; // the wrapper was the problem (`import`), not the filter
    const [first, ...rest] = errorLines(failureText(err));
    throw new UsageError(
      `invalid --jq expression: ${first}`,
      rest.map((description) => ({ field: 'jq', description })),
    );
  }
}

/** Filters `input` (JSON text) through jq; the result ends with a newline, or is empty. */
async function runJq(input: string, filter: string, opts: { pretty: boolean; color: boolean }): Promise<string> {
  if (!input.trim()) return '';
  const flags = ['-r'];
  if (!opts.pretty) flags.push('-c');
  if (opts.color) flags.push('-C');
  let out: string | undefined;
  try {
    out = await jq(input, filter, flags);
  } catch (err) {
    const f = err as JqFailure;
    if (f.exitCode === 3) throw new UsageError(`invalid --jq expression: ${errorLines(failureText(err))[0]}`);
    throw new JqRuntimeError(`--jq: ${errorLines(failureText(err)).join('; ')}`);
  }
  return out === undefined ? '' : `${out}\n`;
}

/**
 * Runs a command with --jq: checks the flags and the expression first (exit 2), then runs the
 * command with JSON output into a buffer, and prints what jq makes of it.
 */
export async function withJq(ctx: Context, filter: string, run: () => Promise<number>): Promise<number> {
  const format = ctx.globals.output;
  if (format !== undefined && format !== 'json') {
    throw new UsageError(`--jq filters JSON output: it cannot be combined with -o ${format}`);
  }
  await compileJq(filter);

  const realIO = ctx.io;
  let buffered = '';
  const sink: OutStream = { write: (s: string) => ((buffered += s), true) };
  const io: IO = { ...realIO, stdout: sink, color: false };
  const globals = ctx.globals;
  ctx.io = io;
  ctx.globals = { ...globals, output: 'json' };
  let code: number;
  try {
    code = await run();
  } finally {
    ctx.io = realIO;
    ctx.globals = globals;
  }
  const color = colorEnabled(ctx);
  const out = await runJq(buffered, filter, { pretty: realIO.stdoutIsTTY, color });
  await write(realIO.stdout, out);
  return code;
}
