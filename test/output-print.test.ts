// The printers, without a server: each format, TTY against pipe, times, color, truncation.
import test from 'ava';
import YAML from 'yaml';
import { defaultGlobals, type GlobalOptions, type OutputFormat } from '../src/cli/context.js';
import { views } from '../src/output/columns.js';
import { createPrinter, outputMode } from '../src/output/print.js';
import { relativeTime } from '../src/output/time.js';
import { captureIO, lines } from './helpers/cli.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const group = (i: number, extra: Record<string, unknown> = {}) => ({
  uid: `${'a'.repeat(40)}/${String(i).padStart(16, '0')}`,
  name: `group-${i}`,
  description: `description ${i}`,
  resourceLimits: {},
  verified: false,
  createTime: '2026-06-01T11:57:00.000Z',
  updateTime: '2026-05-30T12:00:00.000Z',
  ...extra,
});

async function* pagesOf<T>(...pages: T[][]): AsyncIterable<T[]> {
  for (const p of pages) yield p;
}

function printer(format: OutputFormat | undefined, opts: { tty?: boolean; columns?: number; globals?: Partial<GlobalOptions> } = {}) {
  const cap = captureIO({ tty: opts.tty ?? false, columns: opts.columns ?? 200 });
  const ctx = {
    io: cap.io,
    globals: { ...defaultGlobals({}), ...(format ? { output: format } : {}), ...opts.globals },
    clock: { now: () => NOW },
  };
  return { p: createPrinter(ctx), out: cap.out, err: cap.err };
}

test('the default is a table on a TTY and tab-separated rows on a pipe', (t) => {
  const io = captureIO({ tty: true }).io;
  t.is(outputMode({ io, globals: defaultGlobals({}) }), 'table');
  t.is(outputMode({ io: captureIO({ tty: false }).io, globals: defaultGlobals({}) }), 'plain');
  t.is(outputMode({ io, globals: { ...defaultGlobals({}), output: 'json' } }), 'json');
});

test('piped: no header, tab-separated, RFC 3339 times, tabs and newlines in cells flattened', async (t) => {
  const { p, out } = printer(undefined);
  await p.list(views.groups, pagesOf([group(1)], [group(2, { description: 'two\tlines\nhere' })]));
  t.deepEqual(lines(out()), [`${group(1).uid}\tgroup-1\tdescription 1`, `${group(2).uid}\tgroup-2\ttwo lines here`]);
});

test('control characters in server text (ANSI escapes) never reach the terminal', async (t) => {
  const { p, out } = printer(undefined, { tty: true, globals: { color: false } });
  await p.list(views.groups, pagesOf([group(1, { description: 'evil\u001b]0;pwned\u0007\u001b[31mred' })]));
  t.false(out().includes('\u001b'), 'no escape character printed');
  t.true(out().includes('evil\ufffd]0;pwned\ufffd\ufffd[31mred'));
});

test('TTY table: header, aligned columns, relative times in wide', async (t) => {
  const { p, out } = printer(undefined, { tty: true, globals: { color: false } });
  await p.list(views.groups, pagesOf([group(1), group(22, { name: 'a-much-longer-name' })]));
  const [header, r1, r2] = lines(out());
  t.regex(header!, /^UID +NAME +DESCRIPTION$/);
  t.is(header!.indexOf('DESCRIPTION'), r1!.indexOf('description 1'));
  t.is(header!.indexOf('DESCRIPTION'), r2!.indexOf('description 22'));

  const wide = printer('wide', { tty: true, globals: { color: false } });
  await wide.p.item(views.groups, group(1));
  const [wh, wr] = lines(wide.out());
  t.regex(wh!, /VERIFIED +CREATED +UPDATED$/);
  t.regex(wr!, /no +3 minutes ago +2 days ago$/);
});

test('explicit -o table on a pipe keeps the header but not the TTY niceties', async (t) => {
  const { p, out } = printer('wide');
  await p.item(views.groups, group(1));
  const [header, row] = lines(out());
  t.regex(header!, /^UID +NAME/);
  t.regex(row!, /2026-06-01T11:57:00.000Z/);
  t.notRegex(out(), /\x1b\[/);
});

test('an empty table still has its header; an empty TTY listing says so on stderr', async (t) => {
  const { p, out } = printer('table');
  t.is(await p.list(views.groups, pagesOf()), 0);
  t.regex(out(), /^UID +NAME +DESCRIPTION\n$/);
  const tty = printer(undefined, { tty: true, globals: { color: false } });
  await tty.p.list(views.groups, pagesOf());
  t.is(tty.err(), 'No groups found.\n');
});

test('json of a list is one array across pages; of one item, one object', async (t) => {
  const { p, out } = printer('json');
  t.is(await p.list(views.groups, pagesOf([group(1), group(2)], [group(3)])), 3);
  t.deepEqual(JSON.parse(out()), [group(1), group(2), group(3)]);
  const one = printer('json');
  await one.p.item(views.groups, group(1));
  t.deepEqual(JSON.parse(one.out()), group(1));
  const empty = printer('json');
  await empty.p.list(views.groups, pagesOf());
  t.is(empty.out(), '[]\n');
});

test('yaml of a list is one sequence across pages', async (t) => {
  const { p, out } = printer('yaml');
  await p.list(views.groups, pagesOf([group(1)], [group(2), group(3)]));
  t.deepEqual(YAML.parse(out()), [group(1), group(2), group(3)]);
  const empty = printer('yaml');
  await empty.p.list(views.groups, pagesOf());
  t.deepEqual(YAML.parse(empty.out()), []);
});

test('ndjson writes each page as it arrives, one object per line', async (t) => {
  const { p, out } = printer('ndjson');
  const seen: string[] = [];
  async function* pages() {
    yield [group(1), group(2)];
    seen.push(out()); // what was written before the second page was even fetched
    yield [group(3)];
  }
  await p.list(views.groups, pages());
  t.is(lines(seen[0]!).length, 2);
  t.deepEqual(lines(out()).map((l) => JSON.parse(l)), [group(1), group(2), group(3)]);
});

test('id prints one uid per line', async (t) => {
  const { p, out } = printer('id');
  await p.list(views.groups, pagesOf([group(1), group(2)]));
  t.is(out(), `${group(1).uid}\n${group(2).uid}\n`);
});

test('color: bold header on a TTY, none when color is off', async (t) => {
  const on = printer(undefined, { tty: true });
  await on.p.item(views.groups, group(1));
  t.regex(on.out(), /\x1b\[1mUID/);
  const off = printer(undefined, { tty: true, globals: { color: false } });
  await off.p.item(views.groups, group(1));
  t.notRegex(off.out(), /\x1b\[/);
});

test('cells are cut to the terminal width on a TTY, free text first, uids never', async (t) => {
  const { p, out } = printer(undefined, { tty: true, columns: 80, globals: { color: false } });
  await p.item(views.groups, group(1, { description: 'd'.repeat(200) }));
  const [header, row] = lines(out());
  t.true(row!.length <= 80, `${row!.length}`);
  t.true(row!.startsWith(group(1).uid));
  t.true(row!.endsWith('…'));
  t.true(header!.length <= 80);
});

test('a role binding shows the names of its expanded references', async (t) => {
  const { p, out } = printer(undefined);
  await p.item(views.roleBindings, {
    uid: 'org/g/b',
    identity: { uid: 'org/g/i', name: 'deployer', description: '', subject: 's', issuer: 'https://i' },
    group: { uid: 'org/g', name: 'platform', description: '' },
    role: { uid: 'r1', name: 'viewer', description: '' },
    createTime: '2026-06-01T11:00:00.000Z',
  });
  t.is(out(), 'org/g/b\tdeployer\tviewer\tplatform\n');
});

test('relativeTime', (t) => {
  const at = (iso: string) => relativeTime(iso, NOW);
  t.is(at('2026-06-01T12:00:00.000Z'), 'just now');
  t.is(at('2026-06-01T11:59:30.000Z'), '30 seconds ago');
  t.is(at('2026-06-01T11:59:00.000Z'), 'a minute ago');
  t.is(at('2026-06-01T11:57:00.000Z'), '3 minutes ago');
  t.is(at('2026-06-01T11:00:00.000Z'), 'an hour ago');
  t.is(at('2026-05-29T12:00:00.000Z'), '3 days ago');
  t.is(at('2025-05-01T12:00:00.000Z'), 'a year ago');
  t.is(at('2026-06-01T14:00:00.000Z'), 'in 2 hours');
  t.is(at('not a time'), 'not a time');
});

test('csv: RFC 4180, a header row and every column (wide ones too), full values, quoting where needed', async (t) => {
  const { p, out } = printer('csv', { tty: true, columns: 40 });
  const tricky = group(2, { description: 'says "hi", twice\nand more' });
  t.is(await p.list(views.groups, pagesOf([group(1)], [tricky])), 2);
  const text = out();
  const records = text.split('\r\n');
  t.is(records.at(-1), '', 'every record ends with CRLF');
  t.is(records[0], views.groups.columns.map((c) => c.header).join(','));
  t.is(records[1], `${group(1).uid},group-1,description 1,no,2026-06-01T11:57:00.000Z,2026-05-30T12:00:00.000Z`, 'full uid and RFC 3339 times, even on a terminal');
  t.is(records[2], `${group(2).uid},group-2,"says ""hi"", twice and more",no,2026-06-01T11:57:00.000Z,2026-05-30T12:00:00.000Z`);
});

test('tree: names indented under their parents by uid, in the order listed; orphans start their own tree', async (t) => {
  const org = 'b'.repeat(40);
  const g = (uid: string, name: string) => ({ ...group(0), uid, name });
  const rows = [
    g(org, 'acme'),
    g(`${org}/1111111111111111/2222222222222222`, 'ci'), // listed before its parent
    g(`${org}/1111111111111111`, 'platform'),
    g(`${org}/3333333333333333`, 'security'),
    g(`${'c'.repeat(40)}/4444444444444444`, 'elsewhere'),
  ];
  const { p, out } = printer('tree');
  t.is(await p.list(views.groups, pagesOf(rows)), 5);
  t.is(out(), 'acme\n  platform\n    ci\n  security\nelsewhere\n');
});
