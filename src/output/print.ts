// The printers behind `-o table|wide|json|yaml|ndjson|id` and the piped default.
//
//   no -o, TTY   aligned table with a header (cli-table3, no borders; see table.ts); relative
//                times; short uids; color; free text cut to the terminal width
//   no -o, pipe  tab-separated rows, no header, color or truncation; RFC 3339 times (like gh)
//   -o table     always a header; TTY niceties only on a TTY
//   -o wide      like table, with the wide columns
//   -o json      one object (get) or one array (list), streamed item by item; a list asked
//                for by page token: the API's page, {"<plural>": [...], "nextPageToken": "…"}
//   -o yaml      one mapping or one sequence (yaml is loaded only here)
//   -o ndjson    one object per line, written page by page in constant memory
//   -o id        one uid per line
//   -o csv       RFC 4180: a header row, then every column (wide ones too) with full values
//   -o tree      names indented under their parents by uid (the group hierarchy)
import { colorEnabled, type OutStream, type OutputFormat, type PrintTarget } from './target.js';
import type { Column, View } from './columns.js';
import { relativeTime } from './time.js';

type Mode = OutputFormat | 'plain';

export interface Printer {
  mode: Mode;
  /** Prints a list arriving page by page; resolves to the number of items printed. */
  list<T>(view: View<T>, pages: AsyncIterable<T[]>, page?: PageEnvelope): Promise<number>;
  /** Prints one resource (get, create, update). */
  item<T>(view: View<T>, item: T): Promise<void>;
}

/**
 * `-o json` of a listing asked for by page token: the items under the API's list key, then the
 * token that continues it ("" at the end), read once the pages are done.
 */
interface PageEnvelope {
  key: string;
  nextPageToken: () => string | undefined;
}

interface Style {
  header(text: string): string;
}

export function outputMode(ctx: Pick<PrintTarget, 'globals' | 'io'>): Mode {
  return ctx.globals.output ?? (ctx.io.stdoutIsTTY ? 'table' : 'plain');
}

export function createPrinter(ctx: PrintTarget): Printer {
  const mode = outputMode(ctx);
  const out = ctx.io.stdout;
  // --json FIELDS: each resource cut to those fields, in the order asked.
  const { fields } = ctx.globals;
  const select = (item: unknown): unknown =>
    fields && item && typeof item === 'object' ? Object.fromEntries(fields.filter((f) => f in item).map((f) => [f, (item as Record<string, unknown>)[f]])) : item;
  const list = async <T>(view: View<T>, pages: AsyncIterable<T[]>, page?: PageEnvelope): Promise<number> => {
    let count = 0;
    switch (mode) {
      case 'json': {
        if (page) {
          await write(out, `{\n  ${JSON.stringify(page.key)}: [`);
          for await (const items of pages) {
            await write(out, items.map((item) => `${count++ === 0 ? '\n' : ',\n'}${indent(indent(JSON.stringify(select(item), null, 2)))}`).join(''));
          }
          await write(out, `${count ? '\n  ' : ''}],\n  "nextPageToken": ${JSON.stringify(page.nextPageToken() ?? '')}\n}\n`);
          return count;
        }
        for await (const page of pages) {
          const chunk = page.map((item) => `${count++ === 0 ? '[\n' : ',\n'}${indent(JSON.stringify(select(item), null, 2))}`).join('');
          await write(out, chunk);
        }
        await write(out, count ? '\n]\n' : '[]\n');
        return count;
      }
      case 'yaml': {
        const YAML = (await import('yaml')).default;
        for await (const page of pages) {
          count += page.length;
          await write(out, YAML.stringify(page, { lineWidth: 0 }));
        }
        if (!count) await write(out, '[]\n');
        return count;
      }
      case 'ndjson':
        for await (const page of pages) {
          count += page.length;
          await write(out, page.map((item) => `${JSON.stringify(item)}\n`).join(''));
        }
        return count;
      case 'id':
        for await (const page of pages) {
          count += page.length;
          await write(out, page.map((item) => `${view.id(item)}\n`).join(''));
        }
        return count;
      case 'csv': {
        const cols = visibleColumns(view, true);
        await write(out, csvRow(cols.map((c) => c.header)));
        for await (const page of pages) {
          count += page.length;
          await write(out, page.map((item) => csvRow(cols.map((c) => cell(c, item, false, ctx.clock.now())))).join(''));
        }
        return count;
      }
      case 'tree': {
        const rows: T[] = [];
        for await (const page of pages) rows.push(...page);
        await write(out, renderTree(view, rows));
        if (!rows.length && ctx.io.stderrIsTTY) ctx.io.stderr.write(`No ${view.noun} found.\n`);
        return rows.length;
      }
      case 'plain': {
        const cols = visibleColumns(view, false);
        for await (const page of pages) {
          count += page.length;
          await write(out, page.map((item) => `${cols.map((c) => cell(c, item, false, ctx.clock.now())).join('\t')}\n`).join(''));
        }
        return count;
      }
      case 'table':
      case 'wide': {
        // Alignment needs every row: tables are for people, who do not read 100k rows.
        const rows: T[] = [];
        for await (const page of pages) rows.push(...page);
        await write(out, await renderTable(ctx, view, rows, mode === 'wide'));
        if (!rows.length && ctx.io.stderrIsTTY) ctx.io.stderr.write(`No ${view.noun} found.\n`);
        return rows.length;
      }
    }
  };

  const item = async <T>(view: View<T>, value: T): Promise<void> => {
    switch (mode) {
      case 'json':
        return write(out, `${JSON.stringify(select(value), null, 2)}\n`);
      case 'yaml': {
        const YAML = (await import('yaml')).default;
        return write(out, YAML.stringify(value, { lineWidth: 0 }));
      }
      case 'ndjson':
        return write(out, `${JSON.stringify(value)}\n`);
      default:
        await list(view, single(value));
    }
  };

  return { mode, list, item };
}

/** One CSV record (RFC 4180): fields quoted when they hold a comma, a quote or a line break; CRLF. */
function csvRow(fields: string[]): string {
  return `${fields.map((f) => (/[",\r\n]/.test(f) ? `"${f.replaceAll('"', '""')}"` : f)).join(',')}\r\n`;
}

/**
 * Names indented two spaces per level under their parents, found by uid (`<parent uid>/<id>`),
 * in the order listed; an item whose parent is not in the listing starts a tree of its own.
 */
function renderTree<T>(view: View<T>, rows: T[]): string {
  const nameCol = view.columns.find((c) => c.header === 'NAME');
  const label = (item: T) => cell(nameCol ?? view.columns[0]!, item, false, new Date(0)) || view.id(item);
  const ids = new Set(rows.map((r) => view.id(r)));
  const children = new Map<string, T[]>();
  const roots: T[] = [];
  for (const row of rows) {
    const uid = view.id(row);
    const parent = uid.includes('/') ? uid.slice(0, uid.lastIndexOf('/')) : '';
    if (parent && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), row]);
    else roots.push(row);
  }
  const lines: string[] = [];
  const walk = (row: T, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${label(row)}`);
    for (const child of children.get(view.id(row)) ?? []) walk(child, depth + 1);
  };
  for (const root of roots) walk(root, 0);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

async function* single<T>(value: T): AsyncIterable<T[]> {
  yield [value];
}

function visibleColumns<T>(view: View<T>, wide: boolean): Column<T>[] {
  return view.columns.filter((c) => wide || !c.wide);
}

function cell<T>(column: Column<T>, item: T, human: boolean, now: Date): string {
  const raw = column.value(item);
  if (raw === undefined || raw === null) return '';
  let text: string;
  if (column.kind === 'time' && typeof raw === 'string') text = human ? relativeTime(raw, now) : raw;
  else if (column.kind === 'bool') text = raw ? 'yes' : 'no';
  else if (column.kind === 'digest') text = human ? shortDigest(String(raw)) : String(raw);
  else text = String(raw);
  // Tabs and newlines would break both the aligned table and `cut -f`; other control
  // characters (ANSI escapes in a description) must not reach the terminal.
  return text.replace(/[\t\r\n]+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
}

async function renderTable<T>(ctx: PrintTarget, view: View<T>, rows: T[], wide: boolean): Promise<string> {
  const { displayWidth, fitToTerminal, renderRows, shortUids, truncateToWidth } = await import('./table.js');
  const tty = ctx.io.stdoutIsTTY;
  const cols = visibleColumns(view, wide);
  const now = ctx.clock.now();
  const headers = cols.map((c) => c.header);
  const body = rows.map((row) => cols.map((c) => cell(c, row, tty, now)));
  // Short uids only where a person reads them: a table on a terminal, without -o wide.
  if (tty && !wide) {
    cols.forEach((c, i) => {
      if (c.kind !== 'uid') return;
      const short = shortUids(body.map((r) => r[i]!));
      body.forEach((r, j) => (r[i] = short[j]!));
    });
  }
  const widths = headers.map((h, i) => body.reduce((max, r) => Math.max(max, displayWidth(r[i]!)), displayWidth(h)));
  if (tty) fitToTerminal(widths, cols, ctx.io.columns);
  const style = await styleFor(ctx);
  const fit = (cells: string[]) => cells.map((text, i) => truncateToWidth(text, widths[i]!));
  return renderRows(fit(headers).map((h) => style.header(h)), body.map(fit), widths);
}

/** `sha256:1a2b3c4d5e6f…` → `sha256:1a2b3c4d5e6f` (12 hex digits, like `docker images`); other text unchanged. */
function shortDigest(digest: string): string {
  const m = /^([a-z0-9]+:)([0-9a-f]{12})[0-9a-f]+$/.exec(digest);
  return m ? m[1]! + m[2]! : digest;
}

async function styleFor(ctx: Pick<PrintTarget, 'globals' | 'io'>): Promise<Style> {
  if (!colorEnabled(ctx)) return { header: (t) => t };
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { header: (t) => chalk.bold(t) };
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

/** Writes, waiting for 'drain' when the stream is full, so that streamed output stays in constant memory. */
export async function write(out: OutStream, chunk: string): Promise<void> {
  if (!chunk) return;
  if (!out.write(chunk) && out.once) {
    await new Promise<void>((resolve) => {
      out.once!('drain', () => resolve());
    });
  }
}
