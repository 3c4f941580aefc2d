// References on the command line: the rule (full uid, name, group name path, unique uid suffix) lives in
// src/api/references.ts; here it gets the CLI's client, its hint ("see: pctl groups list")
// and its errors (ambiguous: a usage error, exit 2; none: not found, exit 3). One References
// per invocation (per Context), so lookups are memoized per command.
import type { ResourceDescriptor } from '../../api/resources.js';
import { groups, repos } from '../../api/resources.js';
import { References, UnresolvedReference, type GroupPathLookup, type Lister, type Resolved } from '../../api/references.js';
import type { ApiClient } from '../../client/index.js';
import type { Context } from '../context.js';
import { NotFoundError, UsageError } from '../errors.js';

/** The CLI's lister: the client's one paginator. */
function clientLister(client: () => Promise<ApiClient>): Lister {
  return {
    async *list(d, query, limit) {
      yield* (await client()).list(d, { ...query, limit });
    },
    get: async (d, uid) => (await client()).get(d, uid),
  };
}

/** References as the CLI words them: `see: pctl <noun> list`. */
export function cliReferences(client: () => Promise<ApiClient>): References {
  return referencesOver(clientLister(client));
}

/** References over any lister, as the CLI words them (serve token's lists the data dir's store). */
export function referencesOver(lister: Lister): References {
  return new References(lister, { listHint: (d) => `see: pctl ${d.nouns.cli} list` });
}

export class Resolver {
  readonly #refs: References;

  constructor(ctx: Context) {
    this.#refs = cliReferences(() => ctx.client());
  }

  /** The uid `ref` stands for; `flag` names where it came from, for messages (`--parent`). */
  async uid(d: ResourceDescriptor, ref: string, flag?: string): Promise<string> {
    return (await this.resolve(d, ref, flag)).uid;
  }

  resolve(d: ResourceDescriptor, ref: string, flag?: string): Promise<Resolved> {
    return cliErrors(this.#refs.resolve(d, ref, flag));
  }

  /** A group by its name path, or where the walk stopped (the manifest creates what is missing). */
  groupPath(path: string, flag?: string): Promise<GroupPathLookup> {
    return cliErrors(this.#refs.groupPath(path, flag));
  }
}

/** An unresolved reference as the CLI's error: ambiguous is a usage error (exit 2), none is not found (exit 3). */
export async function cliErrors<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (!(err instanceof UnresolvedReference)) throw err;
    throw err.problem === 'ambiguous' ? new UsageError(err.message, err.fieldViolations) : new NotFoundError(err.message);
  }
}

const resolvers = new WeakMap<Context, Resolver>();

/** The resolver of this invocation (one per Context, so lookups are memoized per command). */
export function resolver(ctx: Context): Resolver {
  let r = resolvers.get(ctx);
  if (!r) resolvers.set(ctx, (r = new Resolver(ctx)));
  return r;
}

/** A group reference (uid, name, name path or uid suffix) → its uid; undefined stays undefined. */
export async function groupUid(ctx: Context, ref: string | undefined, flag?: string): Promise<string | undefined> {
  return ref === undefined ? undefined : resolver(ctx).uid(groups, ref, flag);
}

/** A repo reference (uid, name or uid suffix) → its uid. */
export async function repoUid(ctx: Context, ref: string, flag?: string): Promise<string> {
  return resolver(ctx).uid(repos, ref, flag);
}
