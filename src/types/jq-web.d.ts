// jq-web ships no types: its default export is a promise of the emscripten module's API.
declare module 'jq-web' {
  interface JqWeb {
    /** Like `printf %s JSON | jq FLAGS FILTER`: stdout, one trailing newline removed; undefined when jq printed nothing. Throws on a non-zero exit (err.exitCode, err.stderr). */
    raw(json: string, filter: string, flags?: string[]): string | undefined;
    json(value: unknown, filter: string): unknown;
  }
  const jq: Promise<JqWeb>;
  export default jq;
}
