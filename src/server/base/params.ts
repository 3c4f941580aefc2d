// Query strings and form bodies, decoded strictly: a parameter whose bytes are not UTF-8
// once percent-decoded is a code-3 error naming it (URLSearchParams would silently put
// U+FFFD in its place), and a single-valued parameter may be given once, in one spelling.
import { invalidField } from '../../api/errors.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `a=1&b=%C3%A9` → URLSearchParams, as WHATWG parses it, but refusing text that is not UTF-8. */
export function parseParams(raw: string): URLSearchParams {
  // Without a % there is nothing to mis-decode: node refuses raw non-ASCII in a request line,
  // and a form body's text has been decoded strictly already.
  if (!raw.includes('%')) return new URLSearchParams(raw);
  const params = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = percentDecode(eq === -1 ? pair : pair.slice(0, eq));
    if (name === undefined) throw invalidField('query', 'a parameter name is not UTF-8 text once percent-decoded');
    const value = percentDecode(eq === -1 ? '' : pair.slice(eq + 1));
    if (value === undefined) throw invalidField(name, 'must be UTF-8 text once percent-decoded');
    params.append(name, value);
  }
  return params;
}

/** application/x-www-form-urlencoded percent-decoding (`+` is a space; a `%` not followed by two hex digits stays); undefined when the bytes are not UTF-8. */
function percentDecode(s: string): string | undefined {
  const bytes = Buffer.from(s.replaceAll('+', ' '), 'utf8');
  const out = Buffer.allocUnsafe(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const hex = bytes[i] === 0x25 && i + 2 < bytes.length ? bytes.toString('latin1', i + 1, i + 3) : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      out[n++] = parseInt(hex, 16);
      i += 2;
    } else {
      out[n++] = bytes[i]!;
    }
  }
  try {
    return strictUtf8.decode(out.subarray(0, n));
  } catch {
    return undefined;
  }
}

/**
 * The value of a single-valued parameter that may be spelled several ways (`page_size`,
 * `pageSize`); undefined when absent. Given twice, or in two spellings, it is a code-3
 * error naming it: which one was meant is not ours to guess.
 */
export function singleParam(query: URLSearchParams, field: string, spellings: readonly string[]): string | undefined {
  let seen: { spelling: string; value: string } | undefined;
  for (const [name, value] of query) {
    if (!spellings.includes(name)) continue;
    if (seen) throw repeatedParam(field, seen.spelling, name);
    seen = { spelling: name, value };
  }
  return seen?.value;
}

/** The error for a single-valued parameter given a second time (`second`) after `first`. */
export function repeatedParam(field: string, first: string, second: string) {
  return invalidField(field, first === second ? 'is given more than once' : `is given twice, as ${first} and ${second}`);
}
