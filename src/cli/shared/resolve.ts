// References: wherever a group (or repo) uid is expected, a user may give
//   - a full uid (`<40 hex>` or `<40 hex>/<16 hex>/…`): used as is, no request;
//   - a name (`platform`): looked up with the list endpoint's `name=` filter;
//   - a uid suffix at a `/` boundary (`0123456789abcdef`, `89abcdef01234567/0123456789abcdef`):
//     found by scanning the list (at most SCAN_LIMIT items; beyond that, give the full uid).
// One match resolves; several are ambiguous (exit 2, candidates listed on stderr); none is
// not found (exit 3). Every lookup is memoized per invocation (per Context), so a reference —
// and a scan — costs its requests once, and an item found by a listing is not fetched again.
import type { ResourceDescriptor } from '../../api/resources.js';
import { groups, repos } from '../../api/resources.js';
import { ApiError, Code } from '../../api/errors.js';
import type { Context } from '../context.js';
import { NotFoundError, UsageError } from '../errors.js';

/** A complete uid: an organization's 40 hex digits, then `/`+16 hex per level. */
const FULL_UID_RE = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;
/** A uid outside the hierarchy: hex digits, no `/`. */
const FLAT_UID_RE = /^[0-9a-f]{16,64}$/;
/** What a uid suffix looks like: `/`-separated hex segments. */
const SUFFIX_RE = /^[0-9a-f]+(\/[0-9a-f]+)*$/;
/** A suffix scan reads at most this many items (50 requests of 200). */
const SCAN_LIMIT = 10_000;
/** Candidates shown for an ambiguous reference. */
const MAX_CANDIDATES = 20;

interface Named {
  uid: string;
  name: string;
}

export interface Resolved {
  uid: string;
  /** The resource, when the lookup listed it (so that `get` need not fetch it again). */
  item?: unknown;
}


export class Resolver {
  readonly #ctx: Context;
  readonly #memo = new Map<string, Promise<Resolved>>();
  readonly #scans = new Map<ResourceDescriptor, Promise<{ items: Named[]; complete: boolean }>>();

  constructor(ctx: Context) {
    this.#ctx = ctx;
  }

  /** The uid `ref` stands for; `flag` names where it came from, for messages (`--parent`). */
  async uid(d: ResourceDescriptor, ref: string, flag?: string): Promise<string> {
    return (await this.resolve(d, ref, flag)).uid;
  }

  resolve(d: ResourceDescriptor, ref: string, flag?: string): Promise<Resolved> {
    if (!d.references || ref === '' || FULL_UID_RE.test(ref)) return Promise.resolve({ uid: ref });
    const key = `${d.path}\0${ref}`;
    let p = this.#memo.get(key);
    if (!p) this.#memo.set(key, (p = this.#lookup(d, ref, flag)));
    return p;
  }

  async #lookup(d: ResourceDescriptor, ref: string, flag: string | undefined): Promise<Resolved> {
    const noun = d.nouns.one;
    const client = await this.#ctx.client();
    const found = new Map<string, Named>();

    // A flat uid (an advisory's 32 hex digits) is no suffix of anything: fetched as it is.
    if (d.parent === null && FLAT_UID_RE.test(ref)) {
      try {
        return { uid: ref, item: await client.get(d, ref) };
      } catch (err) {
        if (!(err instanceof ApiError && err.code === Code.NOT_FOUND)) throw err;
      }
    }

    // A name (or what the declaration finds references by, e.g. advisoryIds): one filtered
    // listing. Group names cannot contain `/`, so a path-like ref skips it.
    if (!(d === groups && ref.includes('/'))) {
      const query = d.referenceFilter ? { filters: { [d.referenceFilter]: [ref] } } : { name: ref };
      const byName = client.list(d, { ...query, limit: MAX_CANDIDATES + 1 });
      for await (const item of byName) found.set((item as Named).uid, item as Named);
    }

    // A uid suffix at a `/` boundary: a bounded scan, shared by every suffix of this command.
    const suffix = ref.replace(/^\/+/, '');
    let complete = true;
    if (SUFFIX_RE.test(suffix)) {
      const scan = await this.#scan(d);
      complete = scan.complete;
      for (const item of scan.items) if (item.uid.endsWith(`/${suffix}`)) found.set(item.uid, item);
    }

    const where = flag ? `${flag}: ` : '';
    if (found.size === 1) {
      const [item] = found.values();
      return { uid: item!.uid, item };
    }
    if (found.size > 1) {
      const shown = [...found.values()].slice(0, MAX_CANDIDATES);
      const more = found.size > MAX_CANDIDATES ? ' (first ' + MAX_CANDIDATES + ' shown)' : '';
      throw new UsageError(
        `${where}"${ref}" is ambiguous: it matches ${found.size > MAX_CANDIDATES ? 'more than ' + MAX_CANDIDATES : found.size} ${d.nouns.many}${more}; give one of these uids instead`,
        shown.map((c) => ({ field: c.uid, description: c.name ?? '' })),
      );
    }
    const hint = complete
      ? `see: pctl ${d.nouns.cli} list`
      : `only the first ${SCAN_LIMIT.toLocaleString('en-US')} ${d.nouns.many} were searched for a uid suffix; give the full uid`;
    // The server's wording: "<Kind> not found: …".
    throw new NotFoundError(`${where}${noun[0]!.toUpperCase()}${noun.slice(1)} not found: no ${noun} has the name or uid suffix "${ref}" (${hint})`);
  }

  #scan(d: ResourceDescriptor): Promise<{ items: Named[]; complete: boolean }> {
    let p = this.#scans.get(d);
    if (!p) {
      p = (async () => {
        const client = await this.#ctx.client();
        const pages = client.list(d, { limit: SCAN_LIMIT + 1 });
        const items: Named[] = [];
        // Whole items: one found by its suffix is what `get` prints, without fetching it again.
        for await (const item of pages) items.push(item as Named);
        const complete = items.length <= SCAN_LIMIT;
        return { items: items.slice(0, SCAN_LIMIT), complete };
      })();
      this.#scans.set(d, p);
    }
    return p;
  }
}

const resolvers = new WeakMap<Context, Resolver>();

/** The resolver of this invocation (one per Context, so lookups are memoized per command). */
export function resolver(ctx: Context): Resolver {
  let r = resolvers.get(ctx);
  if (!r) resolvers.set(ctx, (r = new Resolver(ctx)));
  return r;
}

/** A group reference (uid, name or uid suffix) → its uid; undefined stays undefined. */
export async function groupUid(ctx: Context, ref: string | undefined, flag?: string): Promise<string | undefined> {
  return ref === undefined ? undefined : resolver(ctx).uid(groups, ref, flag);
}

/** A repo reference (uid, name or uid suffix) → its uid. */
export async function repoUid(ctx: Context, ref: string, flag?: string): Promise<string> {
  return resolver(ctx).uid(repos, ref, flag);
}
