// Tests that need a system tool (a shell, groff, man). A missing tool registers the test as
// skipped, so a green run never hides an untested path; with PCTL_REQUIRE_SHELLS set (CI,
// which installs them) a missing tool fails the test instead.
import test, { type ImplementationFn } from 'ava';
import { spawnSync } from 'node:child_process';

export const hasTool = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** `test(title, fn)` when every tool is on PATH; otherwise skipped (or failing, in CI). */
export function testNeeding(tools: readonly string[], title: string, fn: ImplementationFn<[]>): void {
  const missing = tools.filter((tool) => !hasTool(tool));
  if (!missing.length) test(title, fn);
  else if (process.env.PCTL_REQUIRE_SHELLS) test(title, (t) => t.fail(`not installed: ${missing.join(', ')} (.ci/run installs it)`));
  else test.skip(`${title} (not installed: ${missing.join(', ')})`, fn);
}
