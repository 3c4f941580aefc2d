// Tables for people: cli-table3 without borders (kubectl/gh style: no box characters, columns
// separated by spaces), laid out in screen columns as string-width measures them: a CJK
// character is 2 columns, an emoji 2, a combining mark or a zero-width character 0.
//
// Loaded only when a table is printed (`import()` from print.ts): startup stays light.
import Table from 'cli-table3';
import stringWidth from 'string-width';
import type { Column } from './columns.js';

/** Between two columns. */
const GAP = '   ';

/** Printable ASCII only: one column per character (most cells; the fast path). */
const ASCII = /^[\x20-\x7e]*$/;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

// string-width sums the widths of a string's graphemes, and a table measures the same cells
// (a few times each) and the same few characters over and over: both are remembered, up to
// a bound well above what a table of 10,000 rows needs.
const MEMO_MAX = 500_000;
const graphemeWidths = new Map<string, number>();
const textWidths = new Map<string, number>();

function remember(memo: Map<string, number>, key: string, value: number): number {
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(key, value);
  return value;
}

function graphemeWidth(grapheme: string): number {
  return graphemeWidths.get(grapheme) ?? remember(graphemeWidths, grapheme, stringWidth(grapheme));
}

/** The width of `text` on a terminal, in columns, as string-width measures it (ANSI escapes count 0). */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  const known = textWidths.get(text);
  if (known !== undefined) return known;
  if (text.includes('\u001b') || text.includes('\u009b')) return remember(textWidths, text, stringWidth(text));
  let width = 0;
  for (const { segment } of graphemes.segment(text)) width += graphemeWidth(segment);
  return remember(textWidths, text, width);
}

/**
 * `text` cut to at most `max` columns, ending in `…` when cut. Cuts between graphemes (a base
 * character with its combining marks, an emoji sequence), never inside one, and never leaves
 * half of a wide character: the result may be a column narrower than `max`. (Text with ANSI
 * escapes is measured right but cut as if the escapes were text: cells are cut before they
 * are styled.)
 */
export function truncateToWidth(text: string, max: number, ellipsis = '…'): string {
  if (displayWidth(text) <= max) return text;
  const room = max - displayWidth(ellipsis);
  if (room < 0) return '';
  if (ASCII.test(text)) return text.slice(0, room) + ellipsis;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = graphemeWidth(segment);
    if (used + w > room) break;
    out += segment;
    used += w;
  }
  return out + ellipsis;
}

/**
 * Shrinks columns until the table fits: free-text columns first, down to 12 columns, then
 * every column but the `keep` ones (names, uids), down to 8. Of the columns allowed, the
 * widest give up room first, and columns that reach the same width shrink together (two long
 * free-text columns end up about equally wide, rather than one cut to nothing). When only
 * `keep` columns are left to cut, the table stays wider than the terminal.
 */
export function fitToTerminal<T>(widths: number[], cols: Column<T>[], terminalWidth: number): void {
  const over = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1) - terminalWidth;
  const shrink = (allowed: (i: number) => boolean, floor: number) => {
    for (let excess = over(); excess > 0; excess = over()) {
      const candidates = widths.flatMap((w, i) => (allowed(i) && w > floor ? [i] : []));
      if (!candidates.length) return;
      const top = Math.max(...candidates.map((i) => widths[i]!));
      const widest = candidates.filter((i) => widths[i] === top);
      const next = Math.max(floor, ...candidates.map((i) => widths[i]!).filter((w) => w < top));
      // Every widest column down toward the next width, no further than the table needs.
      const cut = Math.min(top - next, Math.floor(excess / widest.length));
      if (cut > 0) for (const i of widest) widths[i] = top - cut;
      else for (const i of widest.slice(0, excess)) widths[i] = top - 1;
    }
  };
  shrink((i) => Boolean(cols[i]?.shrink) && !cols[i]?.keep, 12);
  shrink((i) => !cols[i]?.keep, 8);
}

const NO_BORDER = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: '',
};

/**
 * cli-table3 lays rows out in time quadratic in their number (every cell is checked against
 * every earlier row for spans); nothing spans here, so rows are laid out in blocks of this
 * many, each its own table, which prints exactly what one table would, in linear time.
 */
const BLOCK = 256;

/** `cells` in their columns: each padded to `widths[i]` as displayWidth measures it, GAP between, no trailing spaces. */
function line(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((text, i) => text + ' '.repeat(Math.max(0, widths[i]! - displayWidth(text))))
    .join(GAP)
    .trimEnd();
}

/**
 * The table: `header` (already styled: its width is measured without ANSI escapes) over `body`,
 * each column exactly `widths[i]` wide. Cells must already fit their column (the caller cuts
 * them: see truncateToWidth). No trailing spaces, one `\n` after each line.
 *
 * The columns are laid out here, and cli-table3 draws the table (borderless, through its public
 * options) from one cell per line: cli-table3 0.6.5 measures cells with string-width 4, which
 * counts a combining mark outside U+0300–U+036F (Devanagari, Thai …), a zero-width space or a
 * soft hyphen as a column and a newer emoji as one, so cells it padded itself would come out
 * misaligned (test/output-print.test.ts checks such text). Its width for a whole line only
 * decides trailing padding, which is trimmed.
 */
export function renderRows(header: string[], body: string[][], widths: number[]): string {
  const block = (rows: string[][]) => {
    const table = new Table({
      chars: NO_BORDER,
      wordWrap: false,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    });
    table.push(...rows.map((cells) => [line(cells, widths)]));
    return table
      .toString()
      .split('\n')
      .map((l) => `${l.trimEnd()}\n`)
      .join('');
  };
  let out = block([header, ...body.slice(0, BLOCK)]);
  for (let i = BLOCK; i < body.length; i += BLOCK) out += block(body.slice(i, i + BLOCK));
  return out;
}

/**
 * Uids as a person reads them in a table: the last segment (`<org>/<group>/<id>` → `<id>`), or,
 * where another uid of the column ends the same way, the shortest suffix (at a `/`) that no
 * other uid ends with; the full uid when even that is shared. Each short form is a unique uid
 * suffix, which every command accepts wherever a uid is expected. Linear in the number of
 * segments.
 */
export function shortUids(uids: readonly string[]): string[] {
  const distinct = [...new Set(uids)];
  // How many distinct uids end with each suffix (the uid itself is its longest suffix).
  const owners = new Map<string, number>();
  for (const uid of distinct) {
    for (const suffix of suffixes(uid)) owners.set(suffix, (owners.get(suffix) ?? 0) + 1);
  }
  const short = new Map<string, string>();
  for (const uid of distinct) short.set(uid, suffixes(uid).find((s) => owners.get(s) === 1) ?? uid);
  return uids.map((uid) => short.get(uid)!);
}

/** `a/b/c` → `c`, `b/c`, `a/b/c`. */
function suffixes(uid: string): string[] {
  const parts = uid.split('/');
  return parts.map((_, i) => parts.slice(parts.length - 1 - i).join('/'));
}
