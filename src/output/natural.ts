// Natural order for names with numbers in them (image tags): 1.9 < 1.16 < 1.22 < latest.
// The API sorts names as text (order_by=name: 1.16 < 1.22 < 1.9), and serve keeps names in an
// indexed text column that its keyset pages walk in that order, so a numeric-aware order is
// the printer's job: it applies to tables, which hold every row before printing anyway.

const RUN = /\d+|\D+/g;

/**
 * Compares two names run by run: runs of ASCII digits by their numeric value (of any length,
 * leading zeros aside), other runs as text (UTF-16 code units, like the server), a number
 * before text (`1.22` < `latest`), a prefix before what extends it (`1.27` < `1.27-alpine`).
 * Total and deterministic: names equal in this order are compared as plain text.
 */
export function naturalCompare(a: string, b: string): number {
  if (a === b) return 0;
  const x = a.match(RUN) ?? [];
  const y = b.match(RUN) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    const pNum = isDigit(p);
    const qNum = isDigit(q);
    if (pNum && qNum) {
      const c = compareNumbers(p, q);
      if (c !== 0) return c;
    } else if (pNum !== qNum) {
      return pNum ? -1 : 1;
    } else {
      return p < q ? -1 : 1;
    }
  }
  if (x.length !== y.length) return x.length - y.length;
  return a < b ? -1 : 1; // `1.01` and `1.1`: the same numbers, ordered as text
}

function isDigit(run: string): boolean {
  const c = run.charCodeAt(0);
  return c >= 48 && c <= 57;
}

/** Two runs of digits by value, without a size limit. */
function compareNumbers(p: string, q: string): number {
  const a = p.replace(/^0+(?=\d)/, '');
  const b = q.replace(/^0+(?=\d)/, '');
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Every page, then the items in natural order of `key`, at most `limit` of them, as one page.
 * For tables only: they hold every row before printing anyway.
 */
export async function* naturallyOrdered<T>(pages: AsyncIterable<T[]>, key: (item: T) => string, limit = Infinity): AsyncGenerator<T[], void, undefined> {
  const all: T[] = [];
  for await (const page of pages) all.push(...page);
  const sorted = all.sort((a, b) => naturalCompare(key(a), key(b))).slice(0, limit);
  if (sorted.length) yield sorted;
}
