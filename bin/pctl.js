#!/usr/bin/env node
// Tiny shim (startup time is measured: npm run bench -- --startup). CommonJS (bin/package.json):
// an ES module entry makes Node load its ES module loader, which a simple command does not need.
// Node 22+: V8 caches the compiled code on disk (in the OS temp dir), so the next command
// skips most parsing. Node 20 has no such cache.
process.getBuiltinModule('node:module').enableCompileCache?.();

void (async () => {
  const args = process.argv.slice(2);
  // `pctl version`, `--version`, `--help`, `config list`: answered from one CommonJS file,
  // without commander and the command tree (src/cli/fast.ts); undefined for anything else.
  const fast = await require('../dist/bundle/fast.cjs').runFast(args, require('node:path').join(__dirname, '..'));
  if (fast !== undefined) process.exit(fast);
  // Ctrl-C: exit 130 at once, no stack trace, a progress line wiped. Commands that handle
  // the signal themselves (serve shuts down gracefully) register their own listener.
  process.on('SIGINT', () => {
    if (process.listenerCount('SIGINT') > 1) return;
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
    process.exit(130);
  });
  const { main } = await import('../dist/bundle/main.js');
  const code = await main(args);
  // Exit as soon as the output is flushed: nothing left behind (a socket, a timer) holds a
  // finished command.
  process.stdout.write('', () => process.exit(code));
})();
