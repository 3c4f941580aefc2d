// man/pctl.1: generated from the command tree (stale check), complete (every command, flag,
// environment variable and exit code), and rendered by groff without a single warning.
import test from 'ava';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createContext } from '../src/cli/context.js';
import { allCommands, commandSpec } from '../src/cli/completion/spec.js';
import { generatedFiles } from '../src/cli/gen.js';
import { buildProgram } from '../src/cli/main.js';
import { roff } from '../src/cli/man.js';
import { captureIO } from './helpers/cli.js';
import { testNeeding } from './helpers/tools.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const page = readFileSync(resolve(root, 'man/pctl.1'), 'utf8');
const run = promisify(execFile);

test('man/pctl.1 is what `npm run gen` produces from the command tree', (t) => {
  t.true(page === generatedFiles()['man/pctl.1'], 'man/pctl.1 is stale: run `npm run gen` and commit the result');
});

test('package.json lists the man page', (t) => {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
  t.deepEqual(pkg.man, ['./man/pctl.1']);
  t.true(pkg.files.includes('man'));
});

test('the man page has the usual sections, every command and flag, the environment and the exit codes', (t) => {
  for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'GLOBAL OPTIONS', 'ENVIRONMENT', 'EXIT STATUS', 'FILES', 'EXAMPLES', 'SEE ALSO']) {
    t.regex(page, new RegExp(`^\\.SH ${section}$`, 'm'), section);
  }
  const spec = commandSpec(buildProgram(createContext({ io: captureIO().io, env: {} }), () => {}));
  for (const c of allCommands(spec).slice(1)) {
    t.true(page.includes(`.SS \\fB${roff(`pctl ${c.path}`)}\\fR`), `no section for pctl ${c.path}`);
    for (const f of c.flags) t.true(page.includes(`\\fB${roff(f.long ?? f.short!)}\\fR`), `pctl ${c.path}: no ${f.flags}`);
  }
  for (const name of ['PCTL_API_URL', 'PCTL_TOKEN', 'PCTL_PROFILE', 'PCTL_CONFIG_DIR', 'PCTL_DATA_DIR', 'PCTL_DEBUG', 'NO_COLOR']) {
    t.true(page.includes(`.TP\n\\fB${roff(name)}\\fR\n`), `no ${name} in ENVIRONMENT`);
  }
  const exit = page.slice(page.indexOf('.SH EXIT STATUS'), page.indexOf('.SH FILES'));
  for (const code of ['0', '1', '2', '3', '4']) t.true(exit.includes(`.TP\n\\fB${code}\\fR\n`), `exit status ${code}`);
  t.false(/^[ \t]*[.'](?![A-Za-z\\]{1,2}(\s|$))/m.test(page.replace(/^\.(TH|SH|SS|TP|PP|RS|RE|nf|fi|br|nh|ad|\\").*$/gm, '')), 'a text line starts with a control character');
});

test('roff() escapes backslashes, minus signs, quotes and leading control characters', (t) => {
  t.is(roff('--jq .a'), '\\-\\-jq .a');
  t.is(roff('.hidden'), '\\&.hidden');
  t.is(roff("'quoted'"), '\\&\\(aqquoted\\(aq');
  t.is(roff('a\\b'), 'a\\eb');
  t.is(roff('x …'), 'x \\[u2026]');
});

testNeeding(['groff'], 'groff renders the man page without a warning', async (t) => {
  const { stdout, stderr } = await run('groff', ['-man', '-Tutf8', '-ww', '-z', resolve(root, 'man/pctl.1')], { timeout: 20_000 });
  t.is(stderr, '', 'groff warnings');
  t.is(stdout, '');
});

testNeeding(['man', 'groff'], 'man -l renders it cleanly at 80 columns', async (t) => {
  const { stdout, stderr } = await run('man', ['--warnings', '-E', 'UTF-8', '-l', resolve(root, 'man/pctl.1')], {
    timeout: 20_000,
    env: { ...process.env, MANROFFSEQ: '', MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
  });
  t.is(stderr, '', 'man warnings');
  t.regex(stdout, /^PCTL\(1\)/);
  t.true(stdout.includes("pctl groups list --jq '.[].name'"), 'an example survives rendering verbatim (ASCII quotes and minus signs)');
  const wide = stdout.split('\n').filter((l) => l.length > 80 && !l.trimStart().startsWith('$ '));
  t.deepEqual(wide, [], 'lines wider than 80 columns');
});
