// The printers, without a server: each format, TTY against pipe, times, color, truncation.
import test from 'ava';
import stringWidth from 'string-width';
import YAML from 'yaml';
import { defaultGlobals, type GlobalOptions, type OutputFormat } from '../src/cli/context.js';
import { views } from '../src/output/columns.js';
import { naturalCompare } from '../src/output/natural.js';
import { createPrinter, outputMode } from '../src/output/print.js';
import { fitToTerminal, shortUids, truncateToWidth } from '../src/output/table.js';
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
  t.deepEqual(lines(out()), [`group-1\t${group(1).uid}\tdescription 1`, `group-2\t${group(2).uid}\ttwo lines here`], 'NAME first, full uids');
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
  t.regex(header!, /^NAME +UID +DESCRIPTION$/);
  t.regex(r1!, /^group-1 +0000000000000001 +description 1$/, 'no borders; the uid short');
  t.is(header!.indexOf('UID'), r2!.indexOf('0000000000000022'));
  t.is(header!.indexOf('DESCRIPTION'), r1!.indexOf('description 1'));
  t.is(header!.indexOf('DESCRIPTION'), r2!.indexOf('description 22'));
  t.is(header!.indexOf('UID') - 'a-much-longer-name'.length, 3, 'three spaces between columns');

  const wide = printer('wide', { tty: true, globals: { color: false } });
  await wide.p.item(views.groups, group(1));
  const [wh, wr] = lines(wide.out());
  t.regex(wh!, /VERIFIED +CREATED +UPDATED$/);
  t.regex(wr!, /no +3 minutes ago +2 days ago$/);
  t.regex(wr!, new RegExp(`^group-1 +${group(1).uid} `), 'full uids with -o wide');
});

test('explicit -o table on a pipe keeps the header but not the TTY niceties', async (t) => {
  const { p, out } = printer('wide');
  await p.item(views.groups, group(1));
  const [header, row] = lines(out());
  t.regex(header!, /^NAME +UID/);
  t.regex(row!, new RegExp(`^group-1 +${group(1).uid} `), 'full uids off a terminal');
  t.regex(row!, /2026-06-01T11:57:00.000Z/);
  t.notRegex(out(), /\x1b\[/);
});

test('an empty table still has its header; an empty TTY listing says so on stderr', async (t) => {
  const { p, out } = printer('table');
  t.is(await p.list(views.groups, pagesOf()), 0);
  t.regex(out(), /^NAME +UID +DESCRIPTION\n$/);
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
  t.regex(on.out(), /^\x1b\[1mNAME\x1b\[22m +\x1b\[1mUID\x1b\[22m/);
  const off = printer(undefined, { tty: true, globals: { color: false } });
  await off.p.item(views.groups, group(1));
  t.notRegex(off.out(), /\x1b\[/);
});

test('cells are cut to the terminal width on a TTY, free text first, names and uids never', async (t) => {
  const name = `n${'-long'.repeat(8)}`;
  const { p, out } = printer('wide', { tty: true, columns: 80, globals: { color: false } });
  await p.item(views.groups, group(1, { name, description: 'd'.repeat(200) }));
  const [header, row] = lines(out());
  t.true(row!.startsWith(`${name}   ${group(1).uid}   d`), row);
  t.regex(row!, /d… /, 'the description is cut');
  t.is(header!.indexOf('VERIFIED'), row!.indexOf('no'));
});

// ---- terminal tables: short uids, fitting the width, wide characters ----

const ORG = 'c'.repeat(40);
/** The screen column where `needle` starts in `line` (wide characters count 2). */
const columnOf = (line: string, needle: string) => stringWidth(line.slice(0, line.indexOf(needle)));

test('uids are short on a terminal: the last segment, or the shortest suffix no other row shares', async (t) => {
  const rows = [
    group(0, { uid: `${ORG}/1111111111111111/aaaaaaaaaaaaaaaa`, name: 'one' }),
    group(0, { uid: `${ORG}/2222222222222222/aaaaaaaaaaaaaaaa`, name: 'two' }),
    group(0, { uid: `${ORG}/2222222222222222/bbbbbbbbbbbbbbbb`, name: 'three' }),
    group(0, { uid: ORG, name: 'org' }),
  ];
  const { p, out } = printer(undefined, { tty: true, globals: { color: false } });
  await p.list(views.groups, pagesOf(rows));
  t.deepEqual(lines(out()).slice(1).map((l) => l.split(/ {3,}/).slice(0, 2)), [
    ['one', '1111111111111111/aaaaaaaaaaaaaaaa'],
    ['two', '2222222222222222/aaaaaaaaaaaaaaaa'],
    ['three', 'bbbbbbbbbbbbbbbb'],
    ['org', ORG],
  ]);

  // Full everywhere else: -o wide, a pipe, -o table on a pipe, json, yaml, id.
  for (const [format, tty] of [['wide', true], [undefined, false], ['table', false], ['id', false]] as const) {
    const other = printer(format, { tty, globals: { color: false } });
    await other.p.list(views.groups, pagesOf(rows));
    for (const r of rows) t.true(other.out().includes(r.uid), `${format ?? 'pipe'}: ${r.uid}`);
  }
  for (const format of ['json', 'yaml', 'ndjson'] as const) {
    const other = printer(format, { tty: true });
    await other.p.list(views.groups, pagesOf(rows));
    for (const r of rows) t.true(other.out().includes(r.uid), `${format}: ${r.uid}`);
  }
});

test('shortUids: unique suffixes at a / boundary, the same uid in two rows stays short, a uid that ends another stays full', (t) => {
  t.deepEqual(shortUids(['o/a/x', 'o/b/x', 'o/b/y', 'o/b/y', '']), ['a/x', 'b/x', 'y', 'y', '']);
  t.deepEqual(shortUids(['p/q', 'r/p/q']), ['p/q', 'r/p/q'], 'p/q is a suffix of r/p/q: neither is shortened to it');
  t.deepEqual(shortUids(['x/ab', 'x/b']), ['ab', 'b'], 'suffixes are whole segments, not characters');
  t.deepEqual(shortUids([]), []);
});

for (const columns of [80, 120]) {
  test(`at ${columns} columns the table fits: free text cut with …, names and uids whole`, async (t) => {
    const rows = [
      group(1, { uid: `${ORG}/1111111111111111/2222222222222222`, name: 'platform-engineering', description: 'word '.repeat(60) }),
      group(2, { uid: `${ORG}/1111111111111111/3333333333333333`, name: 'web', description: '説明'.repeat(50) }),
      group(3, { uid: `${ORG}/1111111111111111/4444444444444444`, name: 'short', description: 'fits' }),
    ];
    const { p, out } = printer(undefined, { tty: true, columns, globals: { color: false } });
    await p.list(views.groups, pagesOf(rows));
    const [header, ...body] = lines(out());
    for (const l of [header!, ...body]) t.true(stringWidth(l) <= columns, `${stringWidth(l)} > ${columns}: ${l}`);
    t.true(stringWidth(body[0]!) >= columns - 1, 'the cut column uses the room there is');
    t.regex(body[0]!, /^platform-engineering {3}2222222222222222 {3}(word )+wor?d?…$/);
    t.regex(body[1]!, /^web {20}3333333333333333 {3}(説明)+説?…$/);
    t.regex(body[2]!, /^short {18}4444444444444444 {3}fits$/);
    for (const l of body) t.is(columnOf(l, '…') < 0 ? -1 : columnOf(header!, 'DESCRIPTION'), columnOf(l, '…') < 0 ? -1 : columnOf(header!, 'DESCRIPTION'));
    t.is(columnOf(body[1]!, '説'), columnOf(header!, 'DESCRIPTION'));
  });
}

test('a depth-2 group at 80 columns does not wrap: NAME, the short uid, the description cut', async (t) => {
  const uid = `${ORG}/0123456789abcdef/fedcba9876543210`; // 74 characters in full
  const { p, out } = printer(undefined, { tty: true, columns: 80, globals: { color: false } });
  await p.list(views.groups, pagesOf([group(0, { uid, name: 'payments-backend', description: 'Owns the payment services and their deploy identities, across every region' })]));
  const [header, row] = lines(out());
  t.regex(header!, /^NAME +UID +DESCRIPTION$/);
  t.true(row!.startsWith('payments-backend   fedcba9876543210   Owns the payment'), row);
  t.true(stringWidth(row!) <= 80 && stringWidth(header!) <= 80, `${stringWidth(row!)} columns`);
});

test('-o wide with CJK, emoji, combining marks and zero-width characters keeps the later columns aligned', async (t) => {
  const descriptions = [
    '日本語の説明', // 2 columns per character
    'café, cafe\u0301 and 👍 and 👨‍👩‍👧', // a combining accent (0), an emoji and a ZWJ sequence (2 each)
    'हिन्दी क्षि ภาษาไทย', // combining marks outside U+0300–036F: 0 columns
    'zero\u200bwidth soft\u00adhyphen', // zero-width characters: 0 columns
    'plain ascii',
  ];
  // At 120 columns the full uids leave the description 12 columns (longer ones are cut, a wide
  // character possibly one column short of it); at 200 everything fits. Aligned either way.
  for (const columns of [120, 200]) {
    const { p, out } = printer('wide', { tty: true, columns, globals: { color: false } });
    await p.list(views.groups, pagesOf(descriptions.map((description, i) => group(i, { description }))));
    const [header, ...body] = lines(out());
    t.is(body.length, descriptions.length);
    const at = columnOf(header!, 'VERIFIED');
    for (const [i, row] of body.entries()) {
      t.is(columnOf(row, ' no ') + 1, at, `${columns} columns, row ${i}: ${row}`);
      t.true(row.includes(group(i).uid), 'the full uid');
      t.true(stringWidth(row) <= columns, `${stringWidth(row)} > ${columns}`);
      if (columns === 200) t.true(row.includes(descriptions[i]!), 'nothing cut: it fits');
      else if (i === 1) t.regex(row, /^group-1 +\S+ {3}café, [^…]*… +no /, 'cut to fit');
    }
  }
});

test('a long table (laid out in blocks of rows) is one table: one header, every row in order and aligned', async (t) => {
  const rows = Array.from({ length: 600 }, (_, i) => group(i, { name: `g${'x'.repeat(i % 7)}-${i}`, description: i === 599 ? '最後の行' : `row ${i}` }));
  const { p, out } = printer(undefined, { tty: true, globals: { color: false } });
  t.is(await p.list(views.groups, pagesOf(rows.slice(0, 250), rows.slice(250))), 600);
  const [header, ...body] = lines(out());
  t.is(body.length, 600);
  t.is(lines(out()).filter((l) => l.startsWith('NAME')).length, 1);
  const at = header!.indexOf('DESCRIPTION');
  body.forEach((l, i) => {
    t.true(l.startsWith(`${rows[i]!.name} `), l);
    if (i < 599) t.is(l.indexOf(`row ${i}`), at, l);
  });
  t.is(body[599]!.indexOf('最後'), at);
});

test('fitToTerminal: the widest free text gives way first, wide columns shrink together, keep columns never', (t) => {
  const cols = [{ keep: true }, { shrink: true }, { shrink: true }, {}].map((c, i) => ({ header: `C${i}`, value: () => '', ...c }));
  const widths = [20, 90, 40, 10]; // 160 + 3 gaps of 3 = 169
  fitToTerminal(widths, cols, 120);
  t.deepEqual(widths, [20, 41, 40, 10], 'only the widest, by exactly the room needed');
  fitToTerminal(widths, cols, 80);
  t.deepEqual(widths, [20, 20, 21, 10], 'the two free-text columns, once equal, shrink together');
  fitToTerminal(widths, cols, 30);
  t.deepEqual(widths, [20, 8, 8, 8], 'then the others too, down to 8; the keep column stays whole although the table is still too wide');
});

test('truncateToWidth counts screen columns and cuts between graphemes', (t) => {
  t.is(truncateToWidth('abcdef', 6), 'abcdef');
  t.is(truncateToWidth('abcdef', 4), 'abc…');
  t.is(truncateToWidth('日本語の説明', 7), '日本語…', 'never half of a wide character: 6 columns + …');
  t.is(truncateToWidth('日本語の説明', 8), '日本語…', 'one column short rather than half a character');
  t.is(truncateToWidth('日本語の説明', 9), '日本語の…');
  t.is(truncateToWidth('cafe\u0301 noir', 5), 'cafe\u0301…', 'the accent stays with its letter');
  t.is(truncateToWidth('a👨‍👩‍👧b', 3), 'a…', 'an emoji sequence is cut whole or not at all');
  t.is(truncateToWidth('a👨‍👩‍👧bc', 4), 'a👨‍👩‍👧…');
  t.is(truncateToWidth('abc', 0), '');
});

test('naturalCompare: numbers by value, a number before text, a prefix first', (t) => {
  const tags = ['latest', '1.22', '1.9', '1.16', '1.27-alpine', '1.18', '1.27', 'alpine', '1.9.1', '10', '2'];
  t.deepEqual([...tags].sort(naturalCompare), ['1.9', '1.9.1', '1.16', '1.18', '1.22', '1.27', '1.27-alpine', '2', '10', 'alpine', 'latest']);
  t.true(naturalCompare('v99999999999999999999', 'v100000000000000000000') < 0, 'no size limit on numbers');
  t.true(naturalCompare('1.01', '1.1') < 0 && naturalCompare('1.1', '1.01') > 0, 'total: equal numbers fall back to text');
  t.is(naturalCompare('1.2', '1.2'), 0);
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
  t.is(out(), 'viewer\torg/g/b\tdeployer\tplatform\n', 'the role first: a binding has no name, and order_by=name sorts by the role');
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
  t.is(records[1], `group-1,${group(1).uid},description 1,no,2026-06-01T11:57:00.000Z,2026-05-30T12:00:00.000Z`, 'full uid and RFC 3339 times, even on a terminal');
  t.is(records[2], `group-2,${group(2).uid},"says ""hi"", twice and more",no,2026-06-01T11:57:00.000Z,2026-05-30T12:00:00.000Z`);
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
