// Help: every command has a summary, a longer description and 1-3 examples; `pctl` alone (and a
// command group alone) prints help and exits 0; unknown commands suggest the nearest one (exit 2).
import test from 'ava';
import type { Command } from 'commander';
import { createContext } from '../src/cli/context.js';
import { examplesOf } from '../src/cli/command.js';
import { commandPath, visibleSubcommands } from '../src/cli/help.js';
import { buildProgram } from '../src/cli/main.js';
import { captureIO, cli } from './helpers/cli.js';
import { tempDir } from './helpers/temp.js';

const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-help-cfg-') });

function commands(): Command[] {
  const program = buildProgram(createContext({ io: captureIO().io, env: {} }), () => {});
  const out: Command[] = [];
  const walk = (c: Command) => {
    out.push(c);
    visibleSubcommands(c).forEach(walk);
  };
  walk(program);
  return out;
}

test('every command has a one-line summary, a longer description and 1-3 examples', (t) => {
  const all = commands();
  t.true(all.length > 40, `only ${all.length} commands`);
  for (const c of all) {
    const path = commandPath(c) || '(pctl)';
    const examples = examplesOf(c);
    t.true(examples.length >= 1 && examples.length <= 3, `${path}: ${examples.length} examples`);
    for (const [note, cmd] of examples) {
      t.true(note.length > 0, `${path}: an example without a note`);
      t.regex(cmd, /\bpctl\b/, `${path}: example does not run pctl: ${cmd}`);
    }
    t.truthy(c.summary(), `${path}: no summary`);
    t.false(c.summary().includes('\n'), `${path}: the summary is more than one line`);
    t.true(c.description().length > c.summary().length || c.description() !== c.summary(), `${path}: no longer description`);
  }
});

test('--help of every command shows its description and its examples', async (t) => {
  for (const c of commands()) {
    const path = commandPath(c);
    const r = await pctl([...(path ? path.split(' ') : []), '--help']);
    t.is(r.code, 0, `${path} --help: ${r.stderr}`);
    const flat = r.stdout.replace(/\s+/g, ' ');
    t.true(flat.includes(c.description().replace(/\s+/g, ' ').slice(0, 40)), `${path} --help lacks its description`);
    t.true(r.stdout.includes('\nExamples:\n'), `${path} --help lacks examples`);
    const first = examplesOf(c)[0]!;
    t.true(r.stdout.includes(`  $ ${first[1]}`), `${path} --help lacks its first example`);
  }
});

test('a command group lists its subcommands by summary', async (t) => {
  const r = await pctl(['groups', '--help']);
  t.regex(r.stdout, /list\|ls \[options\]\s+list groups\n/);
  t.regex(r.stdout, /delete\|rm <uid>\s+delete a group \(it must be empty\)/);
});

test('pctl alone prints the command groups on stdout and exits 0', async (t) => {
  const r = await pctl([]);
  t.is(r.code, 0);
  t.is(r.stderr, '');
  t.regex(r.stdout, /^Usage: pctl/);
  for (const group of ['groups', 'identities', 'roles', 'role-bindings', 'repos', 'tags', 'advisories', 'api', 'auth', 'config', 'serve', 'completion']) {
    t.regex(r.stdout, new RegExp(`\\n  ${group}\\b`), `no ${group} in the command list`);
  }
  t.false(r.stdout.includes('__complete'), 'the hidden command is listed');
});

test('a command group alone is still a usage error: its help on stderr, exit 2 (see cli-errors)', async (t) => {
  const r = await pctl(['groups']);
  t.is(r.code, 2);
  t.is(r.stdout, '');
  t.regex(r.stderr, /^Usage: pctl groups \[options\] \[command\]/);
});

test('an unknown command suggests the nearest one and exits 2', async (t) => {
  const cases: [string[], string][] = [
    [['grups'], 'groups'],
    [['groups', 'lst'], 'list'],
    [['role-bindings', 'creat'], 'create'],
    [['config', 'uze'], 'use'],
    [['auth', 'loign'], 'login'],
  ];
  for (const [argv, suggestion] of cases) {
    const r = await pctl(argv);
    t.is(r.code, 2, argv.join(' '));
    t.is(r.stdout, '');
    t.regex(r.stderr, /unknown command/, argv.join(' '));
    // `(Did you mean list?)`, or `(Did you mean one of list, ls?)` when an alias is as near.
    t.regex(r.stderr, new RegExp(`\\(Did you mean (one of )?([\\w-]+, )*${suggestion}\\b`), argv.join(' '));
  }
});

test('an unknown flag suggests the nearest one and exits 2', async (t) => {
  const r = await pctl(['groups', 'list', '--descendants', 'x']);
  t.is(r.code, 2);
  t.true(r.stderr.includes('(Did you mean --descendants-of?)'), r.stderr);
});

test('each declared flag is keyed by the name commander gives its value (so handler options are typed right)', async (t) => {
  const { commandTree } = await import('../src/cli/commands/index.js');
  const { Option } = await import('commander');
  const { PAGING_FLAGS } = await import('../src/cli/command.js');
  type Decl = { name: string; flags?: Record<string, { flags: string }>; subcommands?: readonly Decl[] };
  const walk = (d: Decl, path: string): void => {
    for (const [key, f] of Object.entries({ ...(d.flags ?? {}), ...PAGING_FLAGS })) {
      t.is(new Option(f.flags).attributeName(), key, `${path}: ${f.flags}`);
    }
    for (const sub of d.subcommands ?? []) walk(sub, `${path} ${sub.name}`);
  };
  for (const d of commandTree()) walk(d, d.name);
});

test('one noun per domain: advisories holds list, get, documents and metadata; advisory is its alias, not a second tree', (t) => {
  const top = commands().filter((c) => c.parent?.parent === null);
  const advisories = top.find((c) => c.name() === 'advisories')!;
  t.deepEqual(advisories.commands.map((c) => c.name()), ['list', 'get', 'documents', 'metadata']);
  t.deepEqual(advisories.aliases(), ['advisory']);
  t.false(top.some((c) => c.name() === 'advisory'), 'no second top-level command');
});
