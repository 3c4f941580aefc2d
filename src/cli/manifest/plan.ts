// The plan: what it takes to make the subtrees a manifest names look like the manifest.
// Stateless (the API is the state): each manifest entry matches a resource by its `uid:`
// anchor, else by its name under the matched parent group (identities, roles, identity
// providers, repos), role bindings by (group, identity, role), a group's account
// association by its group. What matches and differs is an update; what the manifest has
// and the server does not, a create; with --prune, what the server has under the manifest's
// groups and the manifest does not, a delete. Each change knows the changes it waits for
// (parents before children, identities and roles before bindings, deletes in reverse).
import { ROLE_NAMES, resolveRef, type SeedDocument, type SeedGroup } from '../../api/seed.js';
import { accountAssociations, groups, identities, identityProviders, repos, roleBindings, roles, type ResourceDescriptor } from '../../api/resources.js';
import { setClaimMatchFields, type IdentityProvider, type Role } from '../../api/schemas.js';
import type { GroupPathLookup } from '../../api/references.js';
import type { ApiClient } from '../../client/index.js';
import type { Resolver } from '../shared/resolve.js';
import { groupPath, parentOf, type LiveState } from './live.js';

export type Kind = 'group' | 'identity' | 'role' | 'identityProvider' | 'accountAssociation' | 'repo' | 'roleBinding';
type Action = 'create' | 'update' | 'delete';

/** How a kind reads in a plan, and its place in a group's listing. */
export const KIND_LABEL: Record<Kind, string> = {
  group: 'group', identity: 'identity', role: 'role', identityProvider: 'identity provider',
  accountAssociation: 'account association', repo: 'repo', roleBinding: 'role binding',
};
export const KIND_ORDER: readonly Kind[] = ['group', 'identity', 'role', 'identityProvider', 'accountAssociation', 'repo', 'roleBinding'];

interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
}

export interface Change {
  action: Action;
  kind: Kind;
  /** The name path of the group it is listed under (a group: its own). */
  where: string;
  /** What it is within that group: `platform`, `deployer`, `deployer → editor`. */
  name: string;
  /** An update: the fields that differ. */
  fields: FieldChange[];
  /** Changes this one waits for. */
  deps: Change[];
  /** Sends the request; a create returns the new uid. */
  run: (client: ApiClient) => Promise<string | void>;
  /** The uid it acts on; a create's once done. */
  uid?: string;
}

export interface Plan {
  changes: Change[];
  /** Things said on stderr: what is left alone and why. */
  notes: string[];
}

/** A uid, or the create that will make it. */
type Ref = string | Change;
const claimKey = (c: Readonly<Record<string, unknown>>) => canonical(setClaimMatchFields(c));
const uidOf = (ref: Ref): string => (typeof ref === 'string' ? ref : ref.uid!);
const pending = (refs: readonly (Ref | undefined)[]): Change[] => refs.filter((r): r is Change => typeof r === 'object');

export interface PlanOptions {
  prune: boolean;
  /** The caller's own identity uids: never updated or deleted, nor their bindings deleted. */
  self: ReadonlySet<string>;
  /** How groups are found by name path on the server (the CLI's references). */
  refs: Resolver;
}

/** Problems that stop a plan before any request (exit 2 or 3): a missing organization, a reference to nothing. */
export class PlanError extends Error {
  constructor(readonly problems: { field: string; description: string }[]) {
    super(`the manifest does not fit the server (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing was changed`);
    this.name = 'PlanError';
  }
}

const sameValue = (a: unknown, b: unknown) => canonical(a) === canonical(b);
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** The fields of `want` that differ from `have` (both flat: dotted names). */
function differences(have: Record<string, unknown>, want: Record<string, unknown>): FieldChange[] {
  return Object.keys(want).filter((f) => !sameValue(have[f], want[f])).map((field) => ({ field, from: have[field], to: want[field] }));
}

/** `{a: 1, 'b.c': 2}` → `{a: 1, b: {c: 2}}`: the body of a PATCH whose mask names dotted fields. */
function nest(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(flat)) {
    const parts = path.split('.');
    let cur = out;
    for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
    cur[parts[parts.length - 1]!] = value;
  }
  return out;
}

/** The PATCH body of an update: each differing field's new value. */
const toBody = (fields: FieldChange[]) => nest(Object.fromEntries(fields.map((f) => [f.field, f.to])));

const DEFAULT_CORRELATION = 'SUB_EQUALS_EXTERNAL_ID';

/**
 * The fields of a group apply manages, live or wanted: its description, whether it is
 * verified, and (an organization's alone: its groups inherit it) its kind. Left out of a
 * manifest, each is its default.
 */
const groupFields = (g: { description?: string | undefined; verified?: boolean | undefined; kind?: string | undefined }, organization: boolean) => ({
  description: g.description ?? '', verified: g.verified ?? false, ...(organization ? { kind: g.kind ?? 'ORG_KIND_UNSPECIFIED' } : {}),
});

/** An identity's relationship other than a claimMatch (set on create only), comparable: an expiry the manifest leaves out is the server's to choose. */
function fixedRelationship(x: { staticKeys?: unknown; awsIdentity?: unknown; servicePrincipal?: unknown }, expiry: boolean): string {
  const keys = x.staticKeys as { issuer: string; subject: string; issuerKeys: string; expirationTime?: string; audiences?: string[] } | undefined;
  const staticKeys = keys && {
    issuer: keys.issuer, subject: keys.subject, issuerKeys: keys.issuerKeys, audiences: keys.audiences ?? [],
    ...(expiry && keys.expirationTime ? { expirationTime: Date.parse(keys.expirationTime) } : {}),
  };
  return canonical({ staticKeys: staticKeys ?? null, awsIdentity: x.awsIdentity ?? null, servicePrincipal: x.servicePrincipal ?? null });
}

class Planner {
  readonly changes: Change[] = [];
  readonly notes: string[] = [];
  readonly problems: { field: string; description: string }[] = [];
  /** Live uids the manifest matched: the rest is what --prune deletes. */
  readonly used = new Set<string>();
  /** Manifest entries by name path: `acme/platform` (groups), `acme/platform/deployer` (identities, roles). */
  readonly groupRefs = new Map<string, Ref>();
  readonly identityRefs = new Map<string, Ref>();
  readonly roleRefs = new Map<string, Ref>();
  /** Identity creates by claim (issuer and subject): a moved identity's create waits for its old self's delete. */
  readonly identityClaims = new Map<Change, string>();
  readonly #groupList: { uid: string; name: string }[];
  readonly #children = new Map<string, Map<string, { uid: string }[]>>();
  readonly #livePaths = new Map<string, string>();

  constructor(readonly live: LiveState, readonly client: ApiClient, readonly opts: PlanOptions) {
    const index = (kind: string, items: readonly { uid: string; name: string }[]) => {
      for (const item of items) {
        const key = `${kind}\n${parentOf(item.uid) ?? ''}`;
        let byName = this.#children.get(key);
        if (!byName) this.#children.set(key, (byName = new Map<string, { uid: string }[]>()));
        byName.set(item.name, [...(byName.get(item.name) ?? []), item]);
      }
    };
    this.#groupList = [...live.groups.values()];
    index('group', this.#groupList);
    index('identity', live.identities);
    index('role', live.roles);
    index('identityProvider', live.providers);
    index('repo', live.repos);
    for (const uid of live.groups.keys()) {
      const path = groupPath(live, uid);
      if (path !== undefined) this.#livePaths.set(path, uid);
    }
  }

  add(change: Omit<Change, 'deps'> & { deps?: Change[] }): Change {
    const c: Change = { deps: [], ...change };
    this.changes.push(c);
    return c;
  }

  /** The live item of `kind` the entry stands for: by its anchor, else by name under the matched parent. */
  match<T extends { uid: string }>(kind: string, items: readonly T[], anchor: string | undefined, parent: Ref | undefined, name: string, at: string): T | undefined {
    if (anchor) {
      const found = items.find((i) => i.uid === anchor);
      if (found) return found;
      this.notes.push(`${at}.uid: ${anchor} is not on the server; matched by name instead`);
    }
    if (typeof parent !== 'string') return undefined;
    const found = (this.#children.get(`${kind}\n${parent}`)?.get(name) ?? []).filter((i) => !this.used.has(i.uid));
    if (found.length > 1) this.notes.push(`${at}: ${found.length} ${kind === 'group' ? 'groups' : 'resources'} named ${name} on the server; the first is matched (give uid: to choose)`);
    return found[0] as T | undefined;
  }

  /** A live group's name path, or its uid when a name is unreadable. */
  livePath(uid: string): string {
    return groupPath(this.live, uid) ?? uid;
  }

  update(kind: Kind, d: ResourceDescriptor, where: string, name: string, uid: string, fields: FieldChange[], body: (f: FieldChange[]) => Record<string, unknown>, deps: Change[] = []): Change | undefined {
    if (!fields.length) return undefined;
    const mask = fields.map((f) => f.field);
    return this.add({ action: 'update', kind, where, name, fields, uid, deps, run: (client) => client.update(d, uid, body(fields), mask).then(() => undefined) });
  }

  // ---- the manifest's side ----

  async plan(doc: SeedDocument, roots: ReadonlyMap<string, GroupPathLookup>): Promise<void> {
    const visited: { g: SeedGroup; path: string; ref: Ref; at: string; chain: string[] }[] = [];
    (doc.organizations ?? []).forEach((org, i) => {
      const at = `organizations[${i}]`;
      const lookup = roots.get(org.name)!;
      let ref: Ref;
      if ('uid' in lookup) {
        ref = lookup.uid;
        this.used.add(ref);
        const g = this.live.groups.get(ref)!;
        const organization = parentOf(ref) === null;
        this.update('group', groups, org.name, org.name.slice(org.name.lastIndexOf('/') + 1), ref, differences(groupFields(g, organization), groupFields(org, organization)), toBody);
      } else if (lookup.parentUid !== null && org.name.endsWith(`/${lookup.missing}`)) {
        ref = this.createGroup(org, org.name, lookup.parentUid);
      } else {
        const what = lookup.parentUid === null ? `no organization named ${lookup.missing}` : `no group ${lookup.missing} in ${lookup.at}`;
        this.problems.push({ field: `${at}.name`, description: `${org.name}: the server has ${what} (the API creates groups below an organization, not organizations)` });
        return;
      }
      this.visitGroup(org, org.name, ref, at, [org.name], visited);
    });
    for (const v of visited) await this.planReferences(v.g, v.path, v.ref, v.at, v.chain);
  }

  createGroup(g: SeedGroup, path: string, parent: Ref): Change {
    const name = path.slice(path.lastIndexOf('/') + 1);
    const created = this.add({
      action: 'create', kind: 'group', where: path, name, fields: [], deps: pending([parent]),
      run: async (client) => (await client.create(groups, { parent: uidOf(parent), group: { name, ...(g.description ? { description: g.description } : {}) } })).uid,
    });
    // A create sets no verified flag: an update of the new group does.
    if (g.verified) {
      this.add({
        action: 'update', kind: 'group', where: path, name, fields: [{ field: 'verified', from: false, to: true }], deps: [created],
        run: (client) => client.update(groups, uidOf(created), { verified: true }, ['verified']).then(() => undefined),
      });
    }
    return created;
  }

  visitGroup(g: SeedGroup, path: string, ref: Ref, at: string, chain: string[], visited: { g: SeedGroup; path: string; ref: Ref; at: string; chain: string[] }[]): void {
    this.groupRefs.set(path, ref);
    visited.push({ g, path, ref, at, chain });
    const deps = pending([ref]);
    (g.identities ?? []).forEach((want, i) => {
      const have = this.match('identity', this.live.identities, want.uid, ref, want.name, `${at}.identities[${i}]`);
      const wantFields = { description: want.description ?? '', email: want.email ?? '', claimMatch: setClaimMatchFields(want.claimMatch ?? {}) };
      const expiry = want.staticKeys?.expirationTime !== undefined;
      let out: Ref;
      if (have) {
        this.used.add(have.uid);
        out = have.uid;
        // The relationship's other forms are set on create only (the API updates claimMatch alone).
        if (fixedRelationship(have, expiry) !== fixedRelationship(want, expiry)) {
          this.notes.push(`identity ${path}/${want.name}: its staticKeys, awsIdentity or servicePrincipal differs from the manifest's, and cannot be updated (delete it, or give it another name, to make it anew)`);
        }
        const fields = differences({ name: have.name, description: have.description, email: have.email ?? '', claimMatch: setClaimMatchFields(have.claimMatch) }, { name: want.name, ...wantFields });
        if (fields.length && this.opts.self.has(have.uid)) {
          this.notes.push(`identity ${path}/${want.name} is the one you are signed in as: apply leaves it as it is (${fields.map((f) => f.field).join(', ')} differ)`);
        } else {
          this.update('identity', identities, path, want.name, have.uid, fields, toBody);
        }
      } else {
        const created = this.add({
          action: 'create', kind: 'identity', where: path, name: want.name, fields: [], deps: [...deps],
          run: async (client) => (await client.create(identities, { parent: uidOf(ref), identity: {
            name: want.name, ...(want.description ? { description: want.description } : {}), ...(want.email ? { email: want.email } : {}),
            ...(want.claimMatch ? { claimMatch: want.claimMatch } : {}), ...(want.staticKeys ? { staticKeys: want.staticKeys } : {}), ...(want.awsIdentity ? { awsIdentity: want.awsIdentity } : {}), ...(want.servicePrincipal ? { servicePrincipal: want.servicePrincipal } : {}),
          } })).uid,
        });
        if (want.claimMatch) this.identityClaims.set(created, claimKey(want.claimMatch));
        out = created;
      }
      this.identityRefs.set(`${path}/${want.name}`, out);
    });
    (g.roles ?? []).forEach((want, i) => {
      const have = this.match<Role>('role', this.live.roles, want.uid, ref, want.name, `${at}.roles[${i}]`);
      const capabilities = [...want.capabilities].sort();
      let out: Ref;
      if (have) {
        this.used.add(have.uid);
        out = have.uid;
        this.update('role', roles, path, want.name, have.uid,
          differences({ name: have.name, description: have.description, capabilities: [...(have.capabilities ?? [])].sort() }, { name: want.name, description: want.description ?? '', capabilities }), toBody);
      } else {
        out = this.add({
          action: 'create', kind: 'role', where: path, name: want.name, fields: [], deps: [...deps],
          run: async (client) => (await client.create(roles, { parent: uidOf(ref), role: { name: want.name, ...(want.description ? { description: want.description } : {}), capabilities } })).uid,
        });
      }
      this.roleRefs.set(`${path}/${want.name}`, out);
    });
    (g.repos ?? []).forEach((want, i) => {
      const have = this.match('repo', this.live.repos, want.uid, ref, want.name, `${at}.repos[${i}]`);
      if (!have) {
        this.add({
          action: 'create', kind: 'repo', where: path, name: want.name, fields: [], deps: [...deps],
          run: async (client) => (await client.create(repos, { parent: uidOf(ref), repo: { name: want.name, ...(want.description ? { description: want.description } : {}) } })).uid,
        });
        return;
      }
      this.used.add(have.uid);
      this.update('repo', repos, path, want.name, have.uid, differences({ name: have.name, description: have.description }, { name: want.name, description: want.description ?? '' }), toBody);
    });
    (g.groups ?? []).forEach((child, i) => {
      const childAt = `${at}.groups[${i}]`;
      const childPath = `${path}/${child.name}`;
      const have = this.match('group', this.#groupList, child.uid, ref, child.name, childAt);
      let childRef: Ref;
      if (have) {
        this.used.add(have.uid);
        childRef = have.uid;
        const g2 = this.live.groups.get(have.uid)!;
        this.update('group', groups, childPath, child.name, have.uid, differences({ name: g2.name, ...groupFields(g2, false) }, { name: child.name, ...groupFields(child, false) }), toBody);
      } else {
        childRef = this.createGroup(child, childPath, ref);
      }
      this.visitGroup(child, childPath, childRef, childAt, [...chain, childPath], visited);
    });
  }

  /** A reference from the manifest (nearest group first, else a path), or one to a resource outside it, looked up on the server. */
  async resolve(kind: 'identity' | 'role', ref: string, chain: string[], at: string): Promise<Ref | undefined> {
    const refs = kind === 'identity' ? this.identityRefs : this.roleRefs;
    const found = resolveRef(ref, [...chain].reverse(), (gp, name) => refs.has(`${gp}/${name}`));
    if (found) return refs.get(`${found[0]}/${found[1]}`);
    const slash = ref.lastIndexOf('/');
    const groupUid = slash > 0 ? this.#livePaths.get(ref.slice(0, slash)) ?? (await this.findGroup(ref.slice(0, slash))) : undefined;
    if (groupUid) {
      const name = ref.slice(slash + 1);
      const items = await this.client.list(kind === 'identity' ? identities : roles, { childrenOf: groupUid, name }).all();
      const item = items.find((i) => parentOf(i.uid) === groupUid);
      if (item) return item.uid;
    }
    this.problems.push({ field: at, description: `names no ${kind} of the manifest or the server: ${ref}` });
    return undefined;
  }

  async findGroup(path: string): Promise<string | undefined> {
    const found = await this.opts.refs.groupPath(path);
    return 'uid' in found ? found.uid : undefined;
  }

  async roleRef(ref: string, chain: string[], at: string): Promise<Ref | undefined> {
    if (ROLE_NAMES.has(ref)) {
      const uid = this.live.builtinRoles.get(ref);
      if (!uid) this.problems.push({ field: at, description: `the server has no built-in role ${ref}` });
      return uid;
    }
    return this.resolve('role', ref, chain, at);
  }

  async planReferences(g: SeedGroup, path: string, ref: Ref, at: string, chain: string[]): Promise<void> {
    for (const [i, b] of (g.roleBindings ?? []).entries()) {
      const identity = await this.resolve('identity', b.identity, chain, `${at}.roleBindings[${i}].identity`);
      const role = await this.roleRef(b.role, chain, `${at}.roleBindings[${i}].role`);
      if (!identity || !role) continue;
      const name = `${b.identity} → ${b.role}`;
      const have = typeof ref === 'string' && typeof identity === 'string' && typeof role === 'string'
        ? this.live.bindings.find((x) => !this.used.has(x.uid) && x.group.uid === ref && x.identity.uid === identity && x.role.uid === role)
        : undefined;
      if (have) {
        this.used.add(have.uid);
        continue;
      }
      this.add({
        action: 'create', kind: 'roleBinding', where: path, name, fields: [], deps: pending([ref, identity, role]),
        run: async (client) => (await client.create(roleBindings, { parent: uidOf(ref), roleBinding: { identityUid: uidOf(identity), roleUid: uidOf(role) } })).uid,
      });
    }
    for (const [i, want] of (g.identityProviders ?? []).entries()) {
      const pAt = `${at}.identityProviders[${i}]`;
      const role = await this.roleRef(want.defaultRole, chain, `${pAt}.defaultRole`);
      if (!role) continue;
      const { clientSecret, ...oidc } = want.oidc;
      const wantOidc = {
        'oidc.issuer': oidc.issuer, 'oidc.clientId': oidc.clientId, 'oidc.additionalScopes': oidc.additionalScopes ?? [],
        'oidc.groupsClaim': oidc.groupsClaim ?? '', 'oidc.correlationRule': oidc.correlationRule ?? DEFAULT_CORRELATION, 'oidc.pkceEnabled': oidc.pkceEnabled ?? false,
      };
      const create = (deps: Change[]) => this.add({
        action: 'create', kind: 'identityProvider', where: path, name: want.name, fields: [], deps: [...pending([ref, role]), ...deps],
        run: async (client) => (await client.create(identityProviders, {
          parent: uidOf(ref),
          identityProvider: { name: want.name, ...(want.description ? { description: want.description } : {}), defaultRole: uidOf(role), oidc: { ...oidc, ...(clientSecret ? { clientSecret } : {}) } },
        })).uid,
      });
      const have = this.match<IdentityProvider>('identityProvider', this.live.providers, want.uid, ref, want.name, pAt);
      if (!have) {
        create([]);
        continue;
      }
      this.used.add(have.uid);
      const haveFields = {
        name: have.name, description: have.description, defaultRole: have.defaultRole, 'oidc.issuer': have.oidc.issuer, 'oidc.clientId': have.oidc.clientId,
        'oidc.additionalScopes': have.oidc.additionalScopes, 'oidc.groupsClaim': have.oidc.groupsClaim, 'oidc.correlationRule': have.oidc.correlationRule, 'oidc.pkceEnabled': have.oidc.pkceEnabled,
      };
      const fields = differences(haveFields, { name: want.name, description: want.description ?? '', defaultRole: typeof role === 'string' ? role : '(new role)', ...wantOidc });
      // Show roles by name, not uid.
      for (const f of fields) if (f.field === 'defaultRole') Object.assign(f, { from: this.roleName(have.defaultRole), to: want.defaultRole });
      if (fields.some((f) => f.field === 'oidc.correlationRule')) {
        // Immutable after create (spec): a delete and a create.
        const gone = this.add({ action: 'delete', kind: 'identityProvider', where: path, name: want.name, fields: [], uid: have.uid, run: (client) => client.delete(identityProviders, have.uid) });
        create([gone]).fields = fields;
        continue;
      }
      const wantValues: Record<string, unknown> = { name: want.name, description: want.description ?? '', ...wantOidc };
      this.update('identityProvider', identityProviders, path, want.name, have.uid, fields,
        (f) => nest(Object.fromEntries(f.map((x) => [x.field, x.field === 'defaultRole' ? uidOf(role) : wantValues[x.field]]))),
        pending([role]));
    }
    const want = g.accountAssociation;
    const have = typeof ref === 'string' ? this.live.associations.find((a) => a.uid === ref) : undefined;
    if (want && have) {
      this.used.add(have.uid);
      const blocks = ['amazon', 'google', 'azure', 'github', 'chainguard'] as const;
      const pick = (a: Record<string, unknown>) => Object.fromEntries(blocks.map((b) => [b, a[b]]));
      const fields = differences({ name: have.name, description: have.description, ...pick(have) }, { name: want.name, description: want.description ?? '', ...pick(want) });
      this.update('accountAssociation', accountAssociations, path, want.name, have.uid, fields,
        (f) => Object.fromEntries(f.filter((x) => x.to !== undefined).map((x) => [x.field, x.to])));
    } else if (want) {
      this.add({
        action: 'create', kind: 'accountAssociation', where: path, name: want.name, fields: [], deps: pending([ref]),
        run: async (client) => (await client.create(accountAssociations, { parent: uidOf(ref), accountAssociation: want })).uid,
      });
    }
  }

  roleName(uid: string): string {
    for (const [name, u] of this.live.builtinRoles) if (u === uid) return name;
    const role = this.live.roles.find((r) => r.uid === uid);
    const outside = this.live.outside.get(uid);
    if (role) return `${this.livePath(parentOf(uid)!)}/${role.name}`;
    if (outside) return `${this.livePath(outside.group)}/${outside.name}`;
    return uid;
  }

  identityName(uid: string, fallback: string): string {
    const identity = this.live.identities.find((i) => i.uid === uid);
    return `${this.livePath(parentOf(uid) ?? '')}/${identity?.name ?? fallback}`;
  }

  // ---- the server's side: what --prune deletes ----

  prune(): number {
    const { live } = this;
    const unused = <T extends { uid: string }>(items: readonly T[]) => items.filter((i) => !this.used.has(i.uid));
    const deletes: Change[] = [];
    let left = 0;
    const del = (kind: Kind, d: ResourceDescriptor, uid: string, where: string, name: string, deps: Change[] = []): Change | undefined => {
      if (!this.opts.prune) {
        left++;
        return undefined;
      }
      const c = this.add({ action: 'delete', kind, where, name, fields: [], uid, deps, run: (client) => client.delete(d, uid) });
      deletes.push(c);
      return c;
    };
    const bindingDeletes = new Map<string, Change[]>();
    for (const b of unused(live.bindings)) {
      const name = `${this.identityName(b.identity.uid, b.identity.name)} → ${this.roleName(b.role.uid)}`;
      if (this.opts.self.has(b.identity.uid)) {
        if (this.opts.prune) this.notes.push(`refusing to delete the role binding ${name} in ${this.livePath(b.group.uid)}: it is your own (deleting it could lock you out); left in place`);
        continue;
      }
      const c = del('roleBinding', roleBindings, b.uid, this.livePath(b.group.uid), name);
      if (c) for (const key of [b.identity.uid, b.role.uid]) bindingDeletes.set(key, [...(bindingDeletes.get(key) ?? []), c]);
    }
    const providerDeletes = new Map<string, Change[]>();
    for (const p of unused(live.providers)) {
      const c = del('identityProvider', identityProviders, p.uid, this.livePath(parentOf(p.uid)!), p.name);
      if (c) providerDeletes.set(p.defaultRole, [...(providerDeletes.get(p.defaultRole) ?? []), c]);
    }
    for (const a of unused(live.associations)) del('accountAssociation', accountAssociations, a.uid, this.livePath(a.uid), a.name);
    // A repo's delete takes its tags with it (the manifest's tags take no part: they come from pushes).
    for (const r of unused(live.repos)) del('repo', repos, r.uid, this.livePath(parentOf(r.uid)!), r.name);
    const identityDeletes = new Map<string, Change>();
    for (const i of unused(live.identities)) {
      if (this.opts.self.has(i.uid)) continue;
      const c = del('identity', identities, i.uid, this.livePath(parentOf(i.uid)!), i.name, bindingDeletes.get(i.uid) ?? []);
      if (c && (i.claimMatch.issuer || i.claimMatch.issuerPattern)) identityDeletes.set(claimKey(i.claimMatch), c);
    }
    for (const r of unused(live.roles)) {
      del('role', roles, r.uid, this.livePath(parentOf(r.uid)!), r.name, [...(bindingDeletes.get(r.uid) ?? []), ...(providerDeletes.get(r.uid) ?? [])]);
    }
    // Groups deepest first: each waits for every delete below it.
    const groupsGone = unused([...live.groups.values()].filter((g) => [...live.roots].some((root) => g.uid.startsWith(`${root}/`))))
      .sort((a, b) => b.uid.split('/').length - a.uid.split('/').length);
    for (const g of groupsGone) {
      const below = deletes.filter((c) => c.uid !== g.uid && (c.uid!.startsWith(`${g.uid}/`) || (c.kind === 'accountAssociation' && c.uid === g.uid)));
      del('group', groups, g.uid, this.livePath(g.uid), g.name, below);
    }
    // An identity moved without its uid is a create and a delete of the same claim: the delete goes first.
    for (const c of this.changes) {
      if (c.action !== 'create' || c.kind !== 'identity') continue;
      const want = this.identityClaims.get(c);
      const gone = want && identityDeletes.get(want);
      if (gone) c.deps.push(gone);
    }
    return left;
  }
}

/** Plans `doc` against `live`; `roots` is where each of its organizations entries is on the server. */
export async function makePlan(doc: SeedDocument, live: LiveState, roots: ReadonlyMap<string, GroupPathLookup>, client: ApiClient, opts: PlanOptions): Promise<Plan> {
  const p = new Planner(live, client, opts);
  await p.plan(doc, roots);
  if (p.problems.length) throw new PlanError(p.problems);
  const left = p.prune();
  if (left) p.notes.push(`${left} resource${left === 1 ? '' : 's'} on the server under the manifest's groups ${left === 1 ? 'is' : 'are'} not in it (--prune deletes ${left === 1 ? 'it' : 'them'})`);
  return { changes: p.changes, notes: p.notes };
}
