// The printers behind `-o table|wide|json|yaml|ndjson|id` and the piped default.
//
//   no -o, TTY   aligned table with a header (cli-table3, no borders; see table.ts); relative
//                times; short uids; color; free text cut to the terminal width
//   no -o, pipe  tab-separated rows, no header, color or truncation; RFC 3339 times (like gh)
//   -o table     always a header; TTY niceties only on a TTY
//   -o wide      like table, with the wide columns
//   -o json      one object (get) or one array (list), streamed item by item
//   -o yaml      one mapping or one sequence (yaml is loaded only here)
//   -o ndjson    one object per line, written page by page in constant memory
//   -o id        one uid per line
import { colorEnabled, type OutStream, type OutputFormat, type PrintTarget } from './target.js';
import type { Column, View } from './columns.js';
import { relativeTime } from './time.js';

type Mode = OutputFormat | 'plain';

export interface Printer {
  mode: Mode;
  /** Prints a list arriving page by page; resolves to the number of items printed. */
  list<T>(view: View<T>, pages: AsyncIterable<T[]>): Promise<number>;
  /** Prints one resource (get, create, update). */
  item<T>(view: View<T>, item: T): Promise<void>;
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
  const list = async <T>(view: View<T>, pages: AsyncIterable<T[]>): Promise<number> => {
    let count = 0;
    switch (mode) {
      case 'json': {
        for await (const page of pages) {
          const chunk = page.map((item) => `${count++ === 0 ? '[\n' : ',\n'}${indent(JSON.stringify(item, null, 2))}`).join('');
          await write(out, chunk);
        }
        await write(out, count ? '\n]\n' : '[]\n');
        return count;
      }
      case 'yaml': {
        const YAML = await import('yaml');
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
        return write(out, `${JSON.stringify(value, null, 2)}\n`);
      case 'yaml': {
        const YAML = await import('yaml');
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
export function shortDigest(digest: string): string {
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
