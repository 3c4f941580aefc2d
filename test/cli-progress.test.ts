// Progress of a listing of several pages: on a terminal's stderr only (stdout a terminal too),
// redrawn in place and erased when done; never in pipes, never for one page, never with --debug.
import test from 'ava';
import { main } from '../src/cli/main.js';
import { closeAgent } from '../src/client/http.js';
import { terminalProgress } from '../src/cli/connect.js';
import { captureIO, lines } from './helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

let srv: TestServer;
let env: Record<string, string>;
let parent: string;

test.before(async () => {
  srv = await startTestServer();
  env = { PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-'), NO_COLOR: '1' };
  const root = await srv.call('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'progress-root' } });
  parent = root.json.uid;
  for (let i = 0; i < 5; i++) await srv.call('POST', '/iam/v2/groups', { parent, group: { name: `child-${i}` } });
});

test.after.always(async () => {
  await closeAgent();
  await srv?.dispose();
});

async function run(argv: string[], stdoutIsTTY: boolean, stderrIsTTY: boolean) {
  const { io, out, err } = captureIO();
  io.stdoutIsTTY = stdoutIsTTY;
  io.stderrIsTTY = stderrIsTTY;
  const code = await main(argv, { io, env });
  return { code, stdout: out(), stderr: err() };
}

/** What a terminal shows after `text`: \r returns to the line start, ESC[K clears to its end. */
function screen(text: string): string {
  const rows: string[] = [''];
  let col = 0;
  for (let i = 0; i < text.length; i++) {
    const row = rows.length - 1;
    if (text.startsWith('\x1b[K', i)) {
      rows[row] = rows[row]!.slice(0, col);
      i += 2;
    } else if (text[i] === '\r') col = 0;
    else if (text[i] === '\n') {
      rows.push('');
      col = 0;
    } else {
      rows[row] = rows[row]!.slice(0, col) + text[i] + rows[row]!.slice(col + 1);
      col++;
    }
  }
  return rows.join('\n');
}

const list = (...extra: string[]) => ['groups', 'list', '--children-of', parent, '--page-size', '2', ...extra];

test('stdout and stderr both terminals: "fetched N of M groups…", redrawn in place, erased at the end', async (t) => {
  const r = await run(list(), true, true);
  t.is(r.code, 0, r.stderr);
  t.true(r.stderr.includes('\r\x1b[Kfetched 2 of 5 groups…'), JSON.stringify(r.stderr));
  t.true(r.stderr.includes('\r\x1b[Kfetched 4 of 5 groups…'));
  t.is(screen(r.stderr), '', 'nothing is left on the terminal');
  t.is(lines(r.stdout).length, 6, 'header + 5 rows');

  const json = await run(list('-o', 'json'), true, true);
  t.is(JSON.parse(json.stdout).length, 5);
  t.true(json.stderr.includes('fetched 2 of 5 groups…'));
  t.is(screen(json.stderr), '');

  const limited = await run(list('--limit', '3'), true, true);
  t.true(limited.stderr.includes('fetched 2 of 3 groups…'));
});

test('never in a pipe, nor when only one of stdout and stderr is a terminal', async (t) => {
  for (const [out, err] of [[false, false], [true, false], [false, true]] as const) {
    const r = await run(list('-o', 'json'), out, err);
    t.is(r.code, 0, r.stderr);
    t.is(r.stderr, '', `stdout TTY ${out}, stderr TTY ${err}`);
    t.is(JSON.parse(r.stdout).length, 5);
  }
});

test('never for a single page, nor with --debug', async (t) => {
  const one = await run(['groups', 'list', '--children-of', parent], true, true);
  t.is(one.stderr, '');
  const debug = await run(list('--debug'), true, true);
  t.false(debug.stderr.includes('fetched'));
});

test('numbers are grouped; without a total the count stands alone', (t) => {
  let written = '';
  const p = terminalProgress({ stderr: { write: (s: string) => ((written += s), true) } } as never, 'role bindings');
  p.update(400, 1234);
  t.is(written, '\r\x1b[Kfetched 400 of 1,234 role bindings…');
  p.update(600, undefined);
  t.true(written.endsWith('\r\x1b[Kfetched 600 role bindings…'));
  p.clear();
  t.true(written.endsWith('\r\x1b[K'));
  const before = written;
  p.clear();
  t.is(written, before, 'clearing twice writes nothing');
});
