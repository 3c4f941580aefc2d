// What the printer needs from its caller: streams, TTY facts, the output format, color and
// a clock. The CLI's Context satisfies it (src/cli/context.ts builds on these types), so
// output depends on nothing of the CLI's. Tiny and import-free: loaded on every invocation.

/** The bit of a writable stream we use; process.stdout satisfies it, so does a test buffer. */
export interface OutStream {
  write(chunk: string): boolean;
  /** Present on real streams: used to wait for 'drain' so that streaming output stays in constant memory. */
  once?(event: 'drain' | 'error' | 'close', listener: (...args: unknown[]) => void): unknown;
}

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'ndjson' | 'id' | 'csv' | 'tree';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'wide', 'json', 'yaml', 'ndjson', 'id', 'csv', 'tree'];

export interface PrintTarget {
  io: {
    stdout: OutStream;
    stderr: OutStream;
    stdoutIsTTY: boolean;
    stderrIsTTY: boolean;
    /** Terminal width, used to fit tables on a TTY. */
    columns: number;
    /** Whether ANSI color is used; undefined: when stdout is a TTY. */
    color?: boolean | undefined;
  };
  /** `fields`: JSON output holds only these fields of each resource (--json FIELDS). */
  globals: { output?: OutputFormat | undefined; color: boolean; fields?: string[] | undefined };
  clock: { now(): Date };
}

/** Whether this invocation prints color: stdout is a TTY (or io.color says so) and nobody opted out. */
export function colorEnabled(target: Pick<PrintTarget, 'io' | 'globals'>): boolean {
  return (target.io.color ?? target.io.stdoutIsTTY) && target.globals.color;
}
