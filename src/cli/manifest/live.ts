// What the API holds under the subtrees a manifest names: read through the client's
// paginator (every page, 200 a request, retries and rate-limit backoff included), one
// listing per kind per subtree, all kinds at once. Uids are paths (`<org>/<group>/…`,
// spec: "Conventions"), so every item's parent group is its uid less the last segment.
import { ApiError, Code } from '../../api/errors.js';
import { accountAssociations, groups, identities, identityProviders, repos, roleBindings, roles, type ResourceDescriptor } from '../../api/resources.js';
import type { AccountAssociation, Group, Identity, IdentityProvider, Repo, Role, RoleBinding } from '../../api/schemas.js';
import type { ApiClient } from '../../client/index.js';

export const parentOf = (uid: string): string | null => (uid.includes('/') ? uid.slice(0, uid.lastIndexOf('/')) : null);

export interface LiveState {
  /** Groups by uid: the subtrees, and the ancestors and other groups their names were needed of. */
  groups: Map<string, Group>;
  identities: Identity[];
  /** Custom roles of the subtrees. */
  roles: Role[];
  /** Built-in roles: name → uid. */
  builtinRoles: Map<string, string>;
  bindings: RoleBinding[];
  providers: IdentityProvider[];
  associations: AccountAssociation[];
  repos: Repo[];
  /** Uids of the subtree roots that exist. */
  roots: Set<string>;
  /** Kinds the caller may not list, with the API's word (export leaves them out and says so). */
  unreadable: { noun: string; message: string }[];
  /** Resources outside the subtrees that a reference names (identities, roles): uid → [group uid, name]. */
  outside: Map<string, { group: string; name: string }>;
}

interface ReadOptions {
  /** Leave out a kind the caller may not list (and say so) instead of failing: export. */
  tolerant: boolean;
}

/** Everything of the managed kinds under `rootUids`. */
export async function readLive(client: ApiClient, rootUids: readonly string[], opts: ReadOptions): Promise<LiveState> {
  const unreadable: LiveState['unreadable'] = [];
  /** What `read` lists of `d`, or (tolerant, and the caller may not list them) nothing, said once. */
  const readable = async <T>(d: ResourceDescriptor, read: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await read();
    } catch (err) {
      if (opts.tolerant && err instanceof ApiError && err.code === Code.PERMISSION_DENIED) {
        if (!unreadable.some((u) => u.noun === d.nouns.many)) unreadable.push({ noun: d.nouns.many, message: err.message });
        return [];
      }
      throw err;
    }
  };
  const listAll = <T>(d: ResourceDescriptor, query: (root: string) => object): Promise<T[]> =>
    readable(d, async () => (await Promise.all(rootUids.map((root) => client.list(d, query(root)).all()))).flat() as T[]);
  const below = (root: string) => ({ descendantsOf: root });
  const [rootGroups, rootAssociations, groupList, identityList, roleList, allRoles, bindingList, providerList, associationList, repoList] = await Promise.all([
    Promise.all(rootUids.map((uid) => client.get(groups, uid))),
    // A group's association has the group's uid: a root's own is not below it.
    Promise.all(rootUids.map((uid) => client.get(accountAssociations, uid).catch(absent))),
    listAll<Group>(groups, below),
    listAll<Identity>(identities, below),
    listAll<Role>(roles, below),
    readable(roles, () => client.list(roles, {}).all()),
    listAll<RoleBinding>(roleBindings, below),
    listAll<IdentityProvider>(identityProviders, below),
    listAll<AccountAssociation>(accountAssociations, below),
    listAll<Repo>(repos, below),
  ]);
  const groupMap = new Map<string, Group>();
  for (const g of [...rootGroups, ...groupList]) groupMap.set(g.uid, g);
  const state: LiveState = {
    groups: groupMap,
    identities: identityList,
    roles: roleList,
    builtinRoles: new Map(allRoles.filter((r) => parentOf(r.uid) === null).map((r) => [r.name, r.uid])),
    bindings: bindingList,
    providers: providerList,
    associations: [...rootAssociations.filter((a) => a !== undefined), ...associationList],
    repos: repoList,
    roots: new Set(rootUids),
    unreadable,
    outside: new Map(),
  };
  await nameTheOutside(client, state, allRoles);
  return state;
}

/**
 * The names of what the subtrees refer to outside themselves (an identity of another group
 * bound here, a role of an ancestor), and of the roots' ancestors, fetched once each, so
 * that references can be written as paths.
 */
async function nameTheOutside(client: ApiClient, state: LiveState, allRoles: Role[]): Promise<void> {
  const known = new Set(state.identities.map((i) => i.uid));
  const roleByUid = new Map([...allRoles, ...state.roles].map((r) => [r.uid, r]));
  for (const b of state.bindings) {
    if (!known.has(b.identity.uid)) state.outside.set(b.identity.uid, { group: parentOf(b.identity.uid) ?? '', name: b.identity.name });
    const role = roleByUid.get(b.role.uid);
    if (parentOf(b.role.uid) && !state.roles.some((r) => r.uid === b.role.uid)) state.outside.set(b.role.uid, { group: parentOf(b.role.uid)!, name: role?.name ?? b.role.name });
  }
  for (const p of state.providers) {
    const role = roleByUid.get(p.defaultRole);
    if (role && parentOf(role.uid) && !state.roles.some((r) => r.uid === role.uid)) state.outside.set(role.uid, { group: parentOf(role.uid)!, name: role.name });
  }
  // Every group on the way to a root or to something outside: its name, once.
  const wanted = new Set<string>();
  const climb = (uid: string | null) => {
    for (let cur = uid; cur; cur = parentOf(cur)) if (!state.groups.has(cur)) wanted.add(cur);
  };
  for (const root of state.roots) climb(parentOf(root));
  for (const o of state.outside.values()) climb(o.group);
  const fetched = await Promise.all([...wanted].map((uid) => client.get(groups, uid).catch(absent)));
  for (const g of fetched) if (g) state.groups.set(g.uid, g);
}

/** A get that found nothing, or nothing the caller may read: undefined. */
function absent(err: unknown): undefined {
  if (err instanceof ApiError && (err.code === Code.PERMISSION_DENIED || err.code === Code.NOT_FOUND)) return undefined;
  throw err;
}

/** `acme/platform/ci`: the names from the organization down; undefined when a name could not be read. */
export function groupPath(state: LiveState, uid: string): string | undefined {
  const names: string[] = [];
  for (let cur: string | null = uid; cur; cur = parentOf(cur)) {
    const g = state.groups.get(cur);
    if (!g) return undefined;
    names.unshift(g.name);
  }
  return names.join('/');
}
