// References: wherever a uid is expected, a person (or an agent) may give
//   - a full uid (`<40 hex>` or `<40 hex>/<16 hex>/…`): used as is, no request;
//   - a name (`platform`): looked up with the list endpoint's `name=` filter (or the
//     declaration's referenceFilter);
//   - for groups, a name path from an organization down (`acme/platform/tools`): walked a
//     step at a time, the organization by `name=`, each group below by `children_of` + `name=`;
//   - a uid suffix at a `/` boundary (`0123456789abcdef`, `89abcdef01234567/0123456789abcdef`):
//     found by scanning the list (at most SCAN_LIMIT items; beyond that, give the full uid).
// A resource without a name of its own (an invite) takes a full uid or a uid suffix.
// One match resolves; several are ambiguous, none is not found. Roles are resolved apart,
// from one listing (there are few of them): by uid, exact name or uid suffix, with the same
// rule (two custom roles of one name are ambiguous).
//
// Group names match `^[a-z0-9 ._-]{1,}$` (spec: "Validation"), so a name may be all hex: a
// name path can look like a uid. The shapes decide, in this order: a full uid (40 hex, then
// `/`+16 hex per level) is a uid, never looked up; hex segments joined by `/` are tried both
// as a uid suffix and as a name path (two different matches are ambiguous); anything else
// with a `/` is a name path.
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
const SCAN_LIMIT = 10_000;
/** Candidates shown for an ambiguous reference. */
const MAX_CANDIDATES = 20;

/** Names from an organization down (`acme/platform`): two or more, none empty. */
const isNamePath = (ref: string): boolean => ref.includes('/') && !ref.split('/').includes('');
/** A uid's parent (`<org>/<group>` → `<org>`); null for an organization. */
const parentOf = (uid: string): string | null => (uid.includes('/') ? uid.slice(0, uid.lastIndexOf('/')) : null);

/**
 * A group by its name path: found, or where the walk stopped (`parentUid` null: no
 * organization of that name; else no group `missing` below `parentUid`, whose path is `at`).
 */
export type GroupPathLookup = { uid: string; item: unknown } | { parentUid: string | null; at: string; missing: string };

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
  /** Path prefix (`acme/platform`) → the groups there (one, unless names repeat). */
  readonly #steps = new Map<string, Promise<Named[]>>();
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

  /** A role by uid, exact name (`viewer`) or uid suffix; ambiguous when several match, NOT_FOUND when none does. */
  async role(ref: string, field?: string): Promise<Named> {
    const all = await (this.#roles ??= collect(this.#lister.list(roles, {}, Infinity)));
    const byUid = all.find((r) => r.uid === ref);
    if (byUid) return byUid;
    const suffix = ref.replace(/^\/+/, '');
    const found = all.filter((r) => r.name === ref || (SUFFIX_RE.test(suffix) && r.uid.endsWith(`/${suffix}`)));
    if (found.length === 1) return found[0]!;
    if (found.length > 1) throw ambiguous(roles, ref, field, found);
    throw new ApiError(Code.NOT_FOUND, `Role not found: ${ref} (${this.#hint(roles)})`, {
      reason: 'NOT_FOUND',
      fieldViolations: [{ field: field ?? 'role', description: `no role has the uid, name or uid suffix ${ref}` }],
    });
  }

  /**
   * The group at a name path (`acme/platform/tools`), a step at a time: one filtered listing
   * per step, each step memoized (a sibling path costs one more listing). Several groups with
   * the same name at a step (siblings may share names) are ambiguous.
   */
  async groupPath(path: string, field?: string): Promise<GroupPathLookup> {
    const names = path.split('/');
    let parent: Named | null = null;
    for (let i = 0; i < names.length; i++) {
      const prefix = names.slice(0, i + 1).join('/');
      const matches = await this.#step(prefix, parent);
      if (matches.length > 1) {
        const where = field ? `${field}: ` : '';
        const what = parent ? `${matches.length} groups in ${names.slice(0, i).join('/')} are named "${names[i]}"` : `${matches.length} organizations are named "${names[i]}"`;
        throw new UnresolvedReference(
          'ambiguous',
          `${where}"${path}" is ambiguous: ${what}; give one of these uids instead`,
          matches.slice(0, MAX_CANDIDATES).map((g) => ({ field: g.uid, description: prefix })),
        );
      }
      if (!matches.length) return { parentUid: parent?.uid ?? null, at: names.slice(0, i).join('/'), missing: names[i]! };
      parent = matches[0]!;
    }
    return { uid: parent!.uid, item: parent };
  }

  /** The groups at `prefix` below `parent` (an organization when null). */
  #step(prefix: string, parent: Named | null): Promise<Named[]> {
    let p = this.#steps.get(prefix);
    if (!p) {
      const name = prefix.slice(prefix.lastIndexOf('/') + 1);
      const query: ListQuery = parent ? { childrenOf: parent.uid, name } : { name };
      // Without a parent the filter matches the name at any depth: only organizations count.
      p = collect(this.#lister.list(groups, query, Infinity)).then((all) => all.filter((g) => parentOf(g.uid) === (parent?.uid ?? null)));
      this.#steps.set(prefix, p);
    }
    return p;
  }

  async #lookup(d: AnyResource, ref: string, field: string | undefined): Promise<Resolved> {
    const noun = d.nouns.one;
    const found = new Map<string, Named>();
    const where = field ? `${field}: ` : '';

    // A flat uid (an advisory's 32 hex digits) is no suffix of anything: fetched as it is.
    if (d.parent === null && FLAT_UID_RE.test(ref)) {
      try {
        return { uid: ref, item: await this.#lister.get(d, ref) };
      } catch (err) {
        if (!(err instanceof ApiError && err.code === Code.NOT_FOUND)) throw err;
      }
    }

    // A group's name path: walked from its organization down.
    let walked: GroupPathLookup | undefined;
    if (d === groups && isNamePath(ref)) {
      walked = await this.groupPath(ref, field);
      if ('uid' in walked) found.set(walked.uid, walked.item as Named);
    } else if (d.references !== 'uid suffix') {
      // A name (or what the declaration finds references by, e.g. advisoryIds): one filtered listing.
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

    if (found.size === 1) {
      const [item] = found.values();
      return { uid: item!.uid, item };
    }
    if (found.size > 1) throw ambiguous(d, ref, field, [...found.values()]);
    const hint = complete
      ? this.#hint(d)
      : `only the first ${SCAN_LIMIT.toLocaleString('en-US')} ${d.nouns.many} were searched for a uid suffix; give the full uid`;
    let what = d.references === 'uid suffix' ? `no ${noun} has the uid suffix "${ref}"` : `no ${noun} has the name or uid suffix "${ref}"`;
    if (walked && !('uid' in walked)) {
      const step = walked.parentUid === null ? `no organization is named "${walked.missing}"` : `no group in ${walked.at} is named "${walked.missing}"`;
      what = SUFFIX_RE.test(suffix) ? `no ${noun} has the uid suffix "${ref}", and ${step}` : `"${ref}": ${step}`;
    }
    // The server's wording: "<Kind> not found: …".
    throw new UnresolvedReference('unknown', `${where}${noun[0]!.toUpperCase()}${noun.slice(1)} not found: ${what} (${hint})`);
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

/** Several items match `ref`: the error names them (the first MAX_CANDIDATES), uid → name. */
function ambiguous(d: AnyResource, ref: string, field: string | undefined, found: readonly Named[]): UnresolvedReference {
  const where = field ? `${field}: ` : '';
  const more = found.length > MAX_CANDIDATES ? ' (first ' + MAX_CANDIDATES + ' shown)' : '';
  return new UnresolvedReference(
    'ambiguous',
    `${where}"${ref}" is ambiguous: it matches ${found.length > MAX_CANDIDATES ? 'more than ' + MAX_CANDIDATES : found.length} ${d.nouns.many}${more}; give one of these uids instead`,
    found.slice(0, MAX_CANDIDATES).map((c) => ({ field: c.uid, description: c.name ?? '' })),
  );
}

async function collect(items: AsyncIterable<unknown>): Promise<Named[]> {
  const out: Named[] = [];
  for await (const item of items) out.push(item as Named);
  return out;
}
