// Tests that need a system tool (a shell, groff, man, chromium). A missing tool registers the
// test as skipped, so a green run never hides an untested path; with PCTL_REQUIRE_SHELLS set
// (CI, which installs them) a missing tool fails the test instead.
import test, { type ImplementationFn } from 'ava';
import { spawnSync } from 'node:child_process';

const hasTool = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/**
 * `test(title, fn)` when every tool is on PATH; otherwise skipped (or failing, in CI).
 * `serial` runs it with the file's other serial tests, one at a time.
 */
export function testNeeding(tools: readonly string[], title: string, fn: ImplementationFn<[]>, opts: { serial?: boolean } = {}): void {
  const missing = tools.filter((tool) => !hasTool(tool));
  const run = opts.serial ? test.serial : test;
  if (!missing.length) run(title, fn);
  else if (process.env.PCTL_REQUIRE_SHELLS) run(title, (t) => t.fail(`not installed: ${missing.join(', ')} (.ci/run installs it)`));
  else run.skip(`${title} (not installed: ${missing.join(', ')})`, fn);
}
