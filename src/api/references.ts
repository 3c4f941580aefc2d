// References: wherever a uid is expected, a person (or an agent) may give
//   - a full uid (`<40 hex>` or `<40 hex>/<16 hex>/…`): used as is, no request;
//   - a name (`platform`): looked up with the list endpoint's `name=` filter (or the
//     declaration's referenceFilter);
//   - a uid suffix at a `/` boundary (`0123456789abcdef`, `89abcdef01234567/0123456789abcdef`):
//     found by scanning the list (at most SCAN_LIMIT items; beyond that, give the full uid).
// One match resolves; several are ambiguous, none is not found. Roles are resolved apart: by
// uid or exact name, from one listing (there are few of them).
//
// The rule lives here, below every surface, over an injected Lister: the CLI lists with its
// client, the MCP tools with their API caller (stdio or in-process in serve). Each surface
// says how a user finds the listing ("see: pctl groups list", "see the groups_list tool").
// Every lookup is memoized per References, so a reference (and a scan) costs its requests once,
// and an item found by a listing is not fetched again.
import { ApiError, Code } from './errors.js';
import type { AnyResource } from './registry/index.js';
import { groups, roles } from './registry/index.js';
import type { ListQuery } from './resources.js';

/** A complete uid: an organization's 40 hex digits, then `/`+16 hex per level. */
export const FULL_UID_RE = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;
/** A uid outside the hierarchy: hex digits, no `/`. */
const FLAT_UID_RE = /^[0-9a-f]{16,64}$/;
/** What a uid suffix looks like: `/`-separated hex segments. */
const SUFFIX_RE = /^[0-9a-f]+(\/[0-9a-f]+)*$/;
/** A suffix scan reads at most this many items (50 requests of 200). */
export const SCAN_LIMIT = 10_000;
/** Candidates shown for an ambiguous reference. */
const MAX_CANDIDATES = 20;

/** How references reach the API: a listing (at most `limit` items, in the server's order) and a get. */
export interface Lister {
  list(d: AnyResource, query: ListQuery, limit: number): AsyncIterable<unknown>;
  get(d: AnyResource, uid: string): Promise<unknown>;
}

interface Named {
  uid: string;
  name: string;
}

export interface Resolved {
  uid: string;
  /** The resource, when the lookup listed it (so that `get` need not fetch it again). */
  item?: unknown;
}

/**
 * A reference that names several items (`ambiguous`: code 3, the candidates as field
 * violations, uid → name) or none (`unknown`: code 5). Surfaces may turn it into their own
 * errors (the CLI's usage error, exit 2).
 */
export class UnresolvedReference extends ApiError {
  readonly problem: 'ambiguous' | 'unknown';
  constructor(problem: 'ambiguous' | 'unknown', message: string, candidates: { field: string; description: string }[] = []) {
    super(problem === 'ambiguous' ? Code.INVALID_ARGUMENT : Code.NOT_FOUND, message, {
      reason: problem === 'ambiguous' ? 'AMBIGUOUS_REFERENCE' : 'NOT_FOUND',
      fieldViolations: candidates,
    });
    this.problem = problem;
  }
}

export interface ReferenceOptions {
  /** Where a user lists `d` (appended to a not-found message): `see: pctl groups list`. */
  listHint: (d: AnyResource) => string;
}

export class References {
  readonly #lister: Lister;
  readonly #hint: (d: AnyResource) => string;
  readonly #memo = new Map<string, Promise<Resolved>>();
  readonly #scans = new Map<AnyResource, Promise<{ items: Named[]; complete: boolean }>>();
  #roles: Promise<Named[]> | undefined;

  constructor(lister: Lister, opts: ReferenceOptions) {
    this.#lister = lister;
    this.#hint = opts.listHint;
  }

  /** The uid `ref` stands for; `field` names where it came from, for messages (`--parent`, `parent`). */
  async uid(d: AnyResource, ref: string, field?: string): Promise<string> {
    return (await this.resolve(d, ref, field)).uid;
  }

  resolve(d: AnyResource, ref: string, field?: string): Promise<Resolved> {
    if (!d.references || ref === '' || FULL_UID_RE.test(ref)) return Promise.resolve({ uid: ref });
    const key = `${d.path}\0${ref}`;
    let p = this.#memo.get(key);
    if (!p) this.#memo.set(key, (p = this.#lookup(d, ref, field)));
    return p;
  }

  /** A role by uid or by exact name (`viewer`); NOT_FOUND when neither matches. */
  async role(uidOrName: string, field = 'role'): Promise<Named> {
    const all = await (this.#roles ??= collect(this.#lister.list(roles, {}, Infinity)));
    const found = all.find((r) => r.uid === uidOrName) ?? all.find((r) => r.name === uidOrName);
    if (found) return found;
    throw new ApiError(Code.NOT_FOUND, `Role not found: ${uidOrName} (${this.#hint(roles)})`, {
      reason: 'NOT_FOUND',
      fieldViolations: [{ field, description: `no role has the uid or name ${uidOrName}` }],
    });
  }

  async #lookup(d: AnyResource, ref: string, field: string | undefined): Promise<Resolved> {
    const noun = d.nouns.one;
    const found = new Map<string, Named>();

    // A flat uid (an advisory's 32 hex digits) is no suffix of anything: fetched as it is.
    if (d.parent === null && FLAT_UID_RE.test(ref)) {
      try {
        return { uid: ref, item: await this.#lister.get(d, ref) };
      } catch (err) {
        if (!(err instanceof ApiError && err.code === Code.NOT_FOUND)) throw err;
      }
    }

    // A name (or what the declaration finds references by, e.g. advisoryIds): one filtered
    // listing. Group names cannot contain `/`, so a path-like ref skips it.
    if (!(d === groups && ref.includes('/'))) {
      const query: ListQuery = d.referenceFilter ? { filters: { [d.referenceFilter]: [ref] } } : { name: ref };
      for await (const item of this.#lister.list(d, query, MAX_CANDIDATES + 1)) found.set((item as Named).uid, item as Named);
    }

    // A uid suffix at a `/` boundary: a bounded scan, shared by every suffix resolved here.
    const suffix = ref.replace(/^\/+/, '');
    let complete = true;
    if (SUFFIX_RE.test(suffix)) {
      const scan = await this.#scan(d);
      complete = scan.complete;
      for (const item of scan.items) if (item.uid.endsWith(`/${suffix}`)) found.set(item.uid, item);
    }

    const where = field ? `${field}: ` : '';
    if (found.size === 1) {
      const [item] = found.values();
      return { uid: item!.uid, item };
    }
    if (found.size > 1) {
      const shown = [...found.values()].slice(0, MAX_CANDIDATES);
      const more = found.size > MAX_CANDIDATES ? ' (first ' + MAX_CANDIDATES + ' shown)' : '';
      throw new UnresolvedReference(
        'ambiguous',
        `${where}"${ref}" is ambiguous: it matches ${found.size > MAX_CANDIDATES ? 'more than ' + MAX_CANDIDATES : found.size} ${d.nouns.many}${more}; give one of these uids instead`,
        shown.map((c) => ({ field: c.uid, description: c.name ?? '' })),
      );
    }
    const hint = complete
      ? this.#hint(d)
      : `only the first ${SCAN_LIMIT.toLocaleString('en-US')} ${d.nouns.many} were searched for a uid suffix; give the full uid`;
    // The server's wording: "<Kind> not found: …".
    throw new UnresolvedReference('unknown', `${where}${noun[0]!.toUpperCase()}${noun.slice(1)} not found: no ${noun} has the name or uid suffix "${ref}" (${hint})`);
  }

  #scan(d: AnyResource): Promise<{ items: Named[]; complete: boolean }> {
    let p = this.#scans.get(d);
    if (!p) {
      p = (async () => {
        // Whole items: one found by its suffix is what `get` shows, without fetching it again.
        const items = await collect(this.#lister.list(d, {}, SCAN_LIMIT + 1));
        return { items: items.slice(0, SCAN_LIMIT), complete: items.length <= SCAN_LIMIT };
      })();
      this.#scans.set(d, p);
    }
    return p;
  }
}

async function collect(items: AsyncIterable<unknown>): Promise<Named[]> {
  const out: Named[] = [];
  for await (const item of items) out.push(item as Named);
  return out;
}
