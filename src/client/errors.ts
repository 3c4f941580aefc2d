// The client's own failures (the API's answers are ApiErrors, src/api/errors.ts). The CLI
// maps each to an exit code (src/cli/errors.ts).

/** The server could not be reached or did not answer in time (exit 1). */
export class NetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NetworkError';
  }
}

/** The server answered, but not with what the contract promises (exit 1). */
export class ResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResponseError';
  }
}
