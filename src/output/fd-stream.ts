// stdout written with fs.writeSync, for the simple commands (src/cli/fast.ts): process.stdout
// builds a stream object on first use (a pipe's is a net.Socket), a sizable share of a simple
// command's start. A descriptor that is non-blocking and full answers EAGAIN: from then on
// the rest goes through the stream, in order. A reader that went away (`pctl … | head -1`)
// ends the command quietly, as the full CLI does (src/cli/context.ts).
import { writeSync } from 'node:fs';
import type { OutStream } from './target.js';

export interface FdStream extends OutStream {
  /** Calls `done` once everything written has reached the descriptor. */
  flush(done: () => void): void;
}

/** An OutStream on file descriptor 1; `stream` is process.stdout (taken only on EAGAIN). */
export function stdoutFd(stream: () => NodeJS.WritableStream): FdStream {
  let fallback: NodeJS.WritableStream | undefined;
  const toStream = (rest: Buffer): boolean => {
    if (!fallback) {
      fallback = stream();
      fallback.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE') process.exit(0);
        throw err;
      });
    }
    return fallback.write(rest);
  };
  return {
    write(chunk: string): boolean {
      const bytes = Buffer.from(chunk);
      if (fallback) return toStream(bytes);
      for (let at = 0; at < bytes.length; ) {
        try {
          at += writeSync(1, bytes, at);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EAGAIN') return toStream(bytes.subarray(at));
          if (code === 'EPIPE') process.exit(0);
          throw err;
        }
      }
      return true;
    },
    flush(done) {
      if (fallback) fallback.write('', done);
      else done();
    },
  };
}
