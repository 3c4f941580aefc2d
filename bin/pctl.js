#!/usr/bin/env node
// Tiny shim (startup time is measured): answer --version from package.json without
// loading commander or anything else; every other invocation loads the built CLI.
// Builtins come from process.getBuiltinModule: an ES import of one costs more (see scripts/bundle.mjs).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // Ctrl-C: exit 130 at once, no stack trace, a progress line wiped. Commands that handle
  // the signal themselves (serve shuts down gracefully) register their own listener.
  process.on('SIGINT', () => {
    if (process.listenerCount('SIGINT') > 1) return;
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
    process.exit(130);
  });
  // Node 22+: V8 caches the compiled code of the bundle on disk (in the OS temp dir), so
  // the next command skips most parsing. Node 20 has no such cache.
  process.getBuiltinModule('node:module').enableCompileCache?.();
  const { main } = await import('../dist/bundle/main.js');
  const code = await main(args);
  // Exit as soon as the output is flushed: nothing left behind (a socket, a timer) holds a
  // finished command.
  process.stdout.write('', () => process.exit(code));
}
