// How the CLI turns any failure into the contract's output: one `error: <message>` line
// on stderr, then each field violation and each precondition violation, and an exit code.
// Free of heavy imports: loaded on every failing invocation.
import { ApiError, Code, type FieldViolation } from '../api/errors.js';
import { NetworkError, ResponseError } from '../client/errors.js';
import type { IO } from './context.js';

export const ExitCode = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  AUTH: 4,
} as const;

/** A bad flag or argument, detected before any request is sent (exit 2). */
export class UsageError extends Error {
  readonly fieldViolations: FieldViolation[];
  constructor(message: string, fieldViolations: FieldViolation[] = []) {
    super(message);
    this.name = 'UsageError';
    this.fieldViolations = fieldViolations;
  }

  /** The server's own wording for an invalid field, so client- and server-side checks read alike. */
  static invalidField(field: string, description: string): UsageError {
    return new UsageError(`Invalid argument: ${field}: ${description}`, [{ field, description }]);
  }
}

/** Something the user asked for does not exist locally (a profile): exit 3, like an API NOT_FOUND. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

export { NetworkError, ResponseError };

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return ExitCode.USAGE;
  if (err instanceof NotFoundError) return ExitCode.NOT_FOUND;
  if (err instanceof ApiError) {
    if (err.code === Code.NOT_FOUND) return ExitCode.NOT_FOUND;
    if (err.code === Code.UNAUTHENTICATED || err.code === Code.PERMISSION_DENIED) return ExitCode.AUTH;
    return ExitCode.FAILED;
  }
  return ExitCode.FAILED;
}

/** Writes the error to stderr as the contract says; the stack only with --debug. */
export function renderError(io: Pick<IO, 'stderr'>, err: unknown, debug: boolean): void {
  const message = err instanceof Error ? err.message : String(err);
  const lines = [`error: ${oneLine(message)}`];
  if (err instanceof ApiError || err instanceof UsageError) {
    // A violation the message already states ("Invalid argument: name: must match …") is not said twice.
    const said = oneLine(message);
    for (const v of err.fieldViolations) {
      const line = `${v.field}: ${oneLine(v.description)}`;
      if (err.fieldViolations.length > 1 || !said.endsWith(line)) lines.push(`  ${line}`);
    }
  }
  if (err instanceof ApiError) {
    for (const v of err.preconditionViolations) lines.push(`  ${v.type}: ${oneLine(v.description)}`);
  }
  // With --debug, a stack for what may be a bug; errors that are data (API, usage) need none.
  const expected = err instanceof ApiError || err instanceof UsageError || err instanceof NotFoundError;
  if (debug && !expected && err instanceof Error && err.stack) {
    lines.push(err.stack);
    if (err.cause instanceof Error && err.cause.stack) lines.push(`cause: ${err.cause.stack}`);
  }
  io.stderr.write(lines.join('\n') + '\n');
}

/** One line, and no control characters: a message may echo what a user or server sent. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '\ufffd').trim();
}
