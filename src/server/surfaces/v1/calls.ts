// Every v1 call serve answers, by its RPC name: the v2 call that replaces it (the successor,
// for the Link header and the v1 report) and how it runs: a v1 request (its proto3 JSON) in,
// operations on serve's data through the seam (operations.ts), the mapping (mapping.ts), a v1
// answer out. A call with no source in serve's data names what is closest in v2 instead.
import { ApiError, Code, invalidField, notFound } from '../../../api/errors.js';
import { accountAssociations, advisories, groupInvites, groups, identities, identityProviders, repos, roleBindings, roles, subscriptions, tags, type Resource } from '../../../api/registry/index.js';
import type { Principal } from '../../auth/principal.js';
import * as M from './mapping.js';
import type { Operations, Wire } from './operations.js';

type V1 = Record<string, unknown>;

interface CallContext {
  principal: Principal;
  ops: Operations;
}

export interface V1Call {
  /** The v2 call to use instead: `POST /iam/v2/groups`; `{uid}` stands for the v1 call's id. */
  successor: string;
  /** Absent: the call has no source in serve's data, and answers UNIMPLEMENTED (501) saying `missing`. */
  run?: (input: V1, c: CallContext) => Promise<V1>;
  missing?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): V1 => (v && typeof v === 'object' && !Array.isArray(v) ? (v as V1) : {});
const required = (input: V1, jsonName: string, field: string): string => {
  const v = str(input[jsonName]);
  if (!v) throw invalidField(field, 'is required');
  return v;
};

/** The uid's parent in the hierarchy ('' for a root). */
const parentOf = (uid: string) => uid.slice(0, Math.max(0, uid.lastIndexOf('/')));

/** A v2 get that answers "none" rather than an error when the item is missing or hidden: a v1 List by id lists nothing then. */
async function found(c: CallContext, d: Resource, uid: string): Promise<Wire[]> {
  try {
    return [await c.ops.get(d, c.principal, uid)];
  } catch (err) {
    if (err instanceof ApiError && (err.code === Code.NOT_FOUND || err.code === Code.PERMISSION_DENIED)) return [];
    throw err;
  }
}

/**
 * A v1 List: `id` (and `uidp.ids`) by v2 gets, else v2's list with the UIDPFilter's
 * descendants_of / children_of and `name`; then every filter v2 has no parameter for
 * (ancestors_of, in_root) is applied to what v2 answered, and the rest again to what the gets found.
 */
async function list(c: CallContext, d: Resource, filter: V1, params: Record<string, string | string[]> = {}, keyOf = (w: Wire) => str(w.uid)): Promise<Wire[]> {
  const uidp = obj(filter.uidp);
  const id = str(filter.id);
  const ids = [...(id ? [id] : []), ...(Array.isArray(uidp.ids) ? uidp.ids.map(str) : [])];
  const name = str(filter.name);
  const descendants = str(uidp.descendantsOf);
  const children = str(uidp.childrenOf);
  let items: Wire[];
  if (ids.length) {
    items = (await Promise.all([...new Set(ids)].map((uid) => found(c, d, uid)))).flat();
    items = items.filter((w) => (!name || w.name === name) && (!descendants || keyOf(w).startsWith(`${descendants}/`)) && (!children || parentOf(keyOf(w)) === children));
  } else {
    items = await c.ops.all(d, c.principal, {
      ...params,
      ...(descendants ? { 'uidp.descendants_of': descendants } : {}),
      ...(children ? { 'uidp.children_of': children } : {}),
      ...(name ? { name } : {}),
    });
  }
  const ancestors = str(uidp.ancestorsOf);
  if (ancestors) items = items.filter((w) => ancestors.startsWith(`${keyOf(w)}/`));
  if (uidp.inRoot === true) items = items.filter((w) => !keyOf(w).includes('/'));
  return items;
}

/** A v1 group reference: a uid, or the name of a group the caller can see (v1's CreateGroupRequest.parent). */
async function groupUid(c: CallContext, ref: string, field: string): Promise<string> {
  if (!ref) throw invalidField(field, 'is required');
  if (/^[0-9a-f]{40}(\/[0-9a-f]{16})*$/.test(ref)) return ref;
  const named = await c.ops.all(groups, c.principal, { name: ref });
  if (named.length === 1) return str(named[0]!.uid);
  if (named.length > 1) throw invalidField(field, `names ${named.length} groups called ${ref}: give its uid`);
  throw notFound('Group', ref, field);
}

const items = (list: V1[]) => ({ items: list });
const EMPTY = {};

/** Create, Update (PUT: the whole resource), List and Delete of a resource whose v1 and v2 calls match one to one. */
function crud(d: Resource, v2: string, mapping: { toV1: (w: Wire) => V1; fromV1: (v: V1) => Wire; replace: readonly string[] | ((fields: Wire) => string[]) }, names: { parent: string; parentField: string; body: string }) {
  return {
    Create: {
      successor: `POST ${v2}`,
      run: async (input: V1, c: CallContext) => {
        const parent = required(input, names.parent, names.parentField);
        return mapping.toV1(await c.ops.create(d, c.principal, { parent, [d.kind.charAt(0).toLowerCase() + d.kind.slice(1)]: mapping.fromV1(obj(input[names.body])) }));
      },
    },
    Update: {
      successor: `PATCH ${v2}/{uid}`,
      run: async (input: V1, c: CallContext) => {
        const fields = mapping.fromV1(input);
        const mask = typeof mapping.replace === 'function' ? mapping.replace(fields) : mapping.replace;
        return mapping.toV1(await c.ops.update(d, c.principal, required(input, 'id', 'id'), fields, mask));
      },
    },
    List: { successor: `GET ${v2}`, run: async (input: V1, c: CallContext) => items((await list(c, d, input)).map(mapping.toV1)) },
    Delete: removal(d, v2, 'id'),
  };
}

/** Delete by the v1 request's id field (`id`, or `group` for account associations). */
function removal(d: Resource, v2: string, idField: string): V1Call {
  return { successor: `DELETE ${v2}/{uid}`, run: async (input, c) => (await c.ops.remove(d, c.principal, required(input, idField, idField)), EMPTY) };
}

const unimplemented = (successor: string, missing: string): V1Call => ({ successor, missing });

const ADVISORIES = '/vulnerabilities/v2/advisories';
const VULN_REPORTS = `v1 vulnerability report calls have no v2 equivalent; the closest is the advisories of GET ${ADVISORIES}`;

/** Name-pattern filters of v1's tag lists, applied to what v2 lists. */
const TAG_EXCLUDES: Record<string, RegExp> = { excludeReferrers: /^sha256-/, excludeDates: /-20\d{6}$/, excludeEpochs: /-r\d+$/ };
const tagKept = (filter: V1) => (t: Wire) => Object.entries(TAG_EXCLUDES).every(([flag, re]) => filter[flag] !== true || !re.test(str(t.name)));

/** EolTagList page tokens: the uid of the last tag sent (the tags come in uid order). */
const eolToken = { encode: (uid: string) => Buffer.from(uid).toString('base64url'), decode: (token: string) => Buffer.from(token, 'base64url').toString() };
const EOL_PAGE_DEFAULT = 50;
const EOL_PAGE_MAX = 200;

const groupsCrud = crud(groups, '/iam/v2/groups', M.group, { parent: 'parent', parentField: 'parent', body: 'group' });
const identitiesCrud = crud(identities, '/iam/v2/identities', M.identity, { parent: 'parentId', parentField: 'parent_id', body: 'identity' });
const rolesCrud = crud(roles, '/iam/v2/roles', M.role, { parent: 'parentId', parentField: 'parent_id', body: 'role' });
const providersCrud = crud(identityProviders, '/iam/v2/identityProviders', M.identityProvider, { parent: 'parentId', parentField: 'parent_id', body: 'identityProvider' });

const IMAGE_CONTENTS = 'image contents (SBOMs, charts, configs, architectures, sizes, manifests) have no source in serve: it holds tags, not images; the closest is GET /registry/v2/tags?uidp.children_of=REPO';
const BUILDS = 'image builds and syncs have no source in serve; the closest is GET /registry/v2/repos';
const REGISTRY_SETTINGS = 'deployments and registry settings have no source in serve; the closest is GET /registry/v2/repos';
const SCIM = 'SCIM provisioning has no source in serve (v2 identity providers carry no SCIM settings); the closest is GET /iam/v2/identityProviders/{uid}';

export const V1_CALLS: Record<string, V1Call> = {
  // ---- chainguard.platform.iam ----
  'chainguard.platform.iam.Groups/Create': {
    successor: 'POST /iam/v2/groups',
    run: async (input, c) => {
      const parent = await groupUid(c, str(input.parent), 'parent');
      return M.group.toV1(await c.ops.create(groups, c.principal, { parent, group: M.group.fromV1(obj(input.group)) }));
    },
  },
  'chainguard.platform.iam.Groups/Update': groupsCrud.Update,
  'chainguard.platform.iam.Groups/List': groupsCrud.List,
  'chainguard.platform.iam.Groups/Delete': groupsCrud.Delete,
  'chainguard.platform.iam.Groups/LookupGroup': unimplemented('GET /iam/v2/groups', 'looking a group up by the email domain of the caller\'s token has no source in serve (its groups are not verified against email domains); the closest is GET /iam/v2/groups?name=NAME'),
  'chainguard.platform.iam.Groups/RequestGroupAccess': unimplemented('GET /iam/v2/groups', 'group access requests have no source in serve; the closest is an invite: POST /iam/v2/groupInvites'),
  'chainguard.platform.iam.Groups/CheckEligibility': unimplemented('GET /iam/v2/groups', 'email-domain eligibility has no source in serve; the closest is GET /iam/v2/groups'),

  'chainguard.platform.iam.Identities/Create': identitiesCrud.Create,
  'chainguard.platform.iam.Identities/Update': identitiesCrud.Update,
  'chainguard.platform.iam.Identities/List': identitiesCrud.List,
  'chainguard.platform.iam.Identities/Delete': identitiesCrud.Delete,
  'chainguard.platform.iam.Identities/Lookup': {
    successor: 'GET /iam/v2/identities',
    run: async (input, c) => {
      const issuer = required(input, 'issuer', 'issuer');
      const subject = required(input, 'subject', 'subject');
      const match = (await c.ops.all(identities, c.principal, {})).find((i) => {
        const claim = obj(i.claimMatch);
        return claim.issuer === issuer && claim.subject === subject;
      });
      if (!match) throw new ApiError(Code.NOT_FOUND, `No identity you can see matches issuer ${issuer} and subject ${subject}`, { reason: 'NOT_FOUND' });
      return M.identity.toV1(match);
    },
  },

  'chainguard.platform.iam.Roles/Create': rolesCrud.Create,
  'chainguard.platform.iam.Roles/Update': rolesCrud.Update,
  'chainguard.platform.iam.Roles/List': {
    successor: 'GET /iam/v2/roles',
    run: async (input, c) => {
      const parent = str(input.parent);
      const found = await list(c, roles, input);
      // RoleFilter.parent: the exact parent, `/` for the built-in roles.
      return items(found.filter((r) => !parent || parentOf(str(r.uid)) === (parent === '/' ? '' : parent)).map(M.role.toV1));
    },
  },
  'chainguard.platform.iam.Roles/Delete': rolesCrud.Delete,

  'chainguard.platform.iam.RoleBindings/Create': {
    successor: 'POST /iam/v2/roleBindings',
    run: async (input, c) => {
      const parent = required(input, 'parent', 'parent');
      return M.roleBinding.toV1(await c.ops.create(roleBindings, c.principal, { parent, roleBinding: M.roleBinding.fromV1(obj(input.roleBinding)) }));
    },
  },
  'chainguard.platform.iam.RoleBindings/CreateBatch': {
    successor: 'POST /iam/v2/roleBindings',
    // The published BatchCreateRoleBindings' operation: all or none, one batch event (v1's CreateBatch declares the same).
    run: async (input, c) => {
      const parent = required(input, 'parent', 'parent');
      const bindings = (Array.isArray(input.roleBindings) ? input.roleBindings : []).map((b) => M.roleBinding.fromV1(obj(b)));
      return { roleBindings: (await c.ops.bindAll(c.principal, parent, bindings)).map(M.roleBinding.toV1) };
    },
  },
  'chainguard.platform.iam.RoleBindings/Update': unimplemented('DELETE /iam/v2/roleBindings/{uid}', 'role bindings cannot be changed in v2: delete the binding (DELETE /iam/v2/roleBindings/{uid}) and create the new one (POST /iam/v2/roleBindings)'),
  'chainguard.platform.iam.RoleBindings/List': {
    successor: 'GET /iam/v2/roleBindings',
    run: async (input, c) => items((await list(c, roleBindings, input)).map(M.roleBinding.toV1Item)),
  },
  'chainguard.platform.iam.RoleBindings/Delete': removal(roleBindings, '/iam/v2/roleBindings', 'id'),

  'chainguard.platform.iam.IdentityProviders/Create': providersCrud.Create,
  'chainguard.platform.iam.IdentityProviders/Update': providersCrud.Update,
  'chainguard.platform.iam.IdentityProviders/List': providersCrud.List,
  'chainguard.platform.iam.IdentityProviders/Delete': providersCrud.Delete,
  'chainguard.platform.iam.IdentityProviders/GenerateScimToken': unimplemented('GET /iam/v2/identityProviders/{uid}', SCIM),
  'chainguard.platform.iam.IdentityProviders/RegenerateScimToken': unimplemented('GET /iam/v2/identityProviders/{uid}', SCIM),
  'chainguard.platform.iam.IdentityProviders/RevokeScimToken': unimplemented('GET /iam/v2/identityProviders/{uid}', SCIM),
  'chainguard.platform.iam.IdentityProviders/SetScimEnabled': unimplemented('GET /iam/v2/identityProviders/{uid}', SCIM),

  'chainguard.platform.iam.GroupInvites/Create': {
    successor: 'POST /iam/v2/groupInvites',
    run: async (input, c) => {
      const parent = required(input, 'group', 'group');
      return M.groupInvite.toV1(await c.ops.create(groupInvites, c.principal, { parent, groupInvite: M.groupInvite.fromV1(input) }));
    },
  },
  'chainguard.platform.iam.GroupInvites/List': {
    successor: 'GET /iam/v2/groupInvites',
    // GroupInviteFilter.group → uidp.children_of; key_id → key_id.
    run: async (input, c) => {
      const group = str(input.group);
      const keyId = str(input.keyId);
      const filter = { id: input.id, ...(group ? { uidp: { childrenOf: group } } : {}) };
      const found = await list(c, groupInvites, filter, keyId ? { key_id: keyId } : {});
      return items(found.filter((i) => !keyId || i.keyId === keyId).map(M.groupInvite.toV1Item));
    },
  },
  'chainguard.platform.iam.GroupInvites/Delete': removal(groupInvites, '/iam/v2/groupInvites', 'id'),

  'chainguard.platform.iam.GroupAccountAssociations/Create': {
    successor: 'POST /iam/v2/accountAssociations',
    run: async (input, c) => {
      const parent = required(input, 'group', 'group');
      return M.accountAssociation.toV1(await c.ops.create(accountAssociations, c.principal, { parent, accountAssociation: M.accountAssociation.fromV1(input) }));
    },
  },
  'chainguard.platform.iam.GroupAccountAssociations/Update': {
    successor: 'PATCH /iam/v2/accountAssociations/{uid}',
    run: async (input, c) => M.accountAssociation.toV1(await c.ops.update(accountAssociations, c.principal, required(input, 'group', 'group'), M.accountAssociation.fromV1(input), M.accountAssociation.replace)),
  },
  'chainguard.platform.iam.GroupAccountAssociations/List': {
    successor: 'GET /iam/v2/accountAssociations',
    // Keyed by group: AccountAssociationsFilter.group is the association's uid.
    run: async (input, c) => items((await list(c, accountAssociations, { id: input.group, name: input.name })).map(M.accountAssociation.toV1)),
  },
  'chainguard.platform.iam.GroupAccountAssociations/Delete': removal(accountAssociations, '/iam/v2/accountAssociations', 'group'),
  'chainguard.platform.iam.GroupAccountAssociations/Check': {
    successor: 'POST /iam/v2/accountAssociations/{uid}:check',
    run: async (input, c) => M.accountAssociation.checkToV1(await c.ops.action(accountAssociations, c.principal, required(input, 'group', 'group'), 'check', M.accountAssociation.checkFromV1(input.accountType))),
  },

  // ---- chainguard.platform.registry ----
  'chainguard.platform.registry.Registry/CreateRepo': {
    successor: 'POST /registry/v2/repos',
    run: async (input, c) => {
      const parent = required(input, 'parentId', 'parent_id');
      const fields = M.repo.fromV1(obj(input.repo));
      // prevent_existing false (the default): a repo of that name in the group is answered as it is.
      if (input.preventExisting !== true) {
        const same = (await c.ops.all(repos, c.principal, { 'uidp.children_of': parent, name: str(fields.name) }))[0];
        if (same) return M.repo.toV1(same);
      }
      const body = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && !(Array.isArray(v) && !v.length)));
      return M.repo.toV1(await c.ops.create(repos, c.principal, { parent, repo: body }));
    },
  },
  'chainguard.platform.registry.Registry/UpdateRepo': {
    successor: 'PATCH /registry/v2/repos/{uid}',
    run: async (input, c) => M.repo.toV1(await c.ops.update(repos, c.principal, required(input, 'id', 'id'), M.repo.updateFromV1(input), M.repo.replace)),
  },
  'chainguard.platform.registry.Registry/ListRepos': { successor: 'GET /registry/v2/repos', run: async (input, c) => items((await list(c, repos, input)).map(M.repo.toV1)) },
  'chainguard.platform.registry.Registry/DeleteRepo': removal(repos, '/registry/v2/repos', 'id'),
  'chainguard.platform.registry.Registry/CreateTag': {
    successor: 'POST /registry/v2/tags',
    run: async (input, c) => M.tag.toV1(await c.ops.create(tags, c.principal, { parent: required(input, 'repoId', 'repo_id'), tag: M.tag.fromV1(obj(input.tag)) })),
  },
  'chainguard.platform.registry.Registry/UpdateTag': {
    // v2 has no tag update: serve's PATCH of a tag is its extension (the vendor's v2 deletes and creates).
    successor: 'PATCH /registry/v2/tags/{uid}',
    run: async (input, c) => M.tag.toV1(await c.ops.update(tags, c.principal, required(input, 'id', 'id'), M.tag.fromV1(input), M.tag.replace)),
  },
  'chainguard.platform.registry.Registry/DeleteTag': removal(tags, '/registry/v2/tags', 'id'),
  'chainguard.platform.registry.Registry/ListTags': {
    successor: 'GET /registry/v2/tags',
    run: async (input, c) => {
      const digest = str(input.digest);
      const since = str(input.updatedSince);
      const found = (await list(c, tags, input)).filter(tagKept(input))
        .filter((t) => (!digest || t.digest === digest) && (!since || Date.parse(str(t.updateTime)) > Date.parse(since)));
      return items(found.map(M.tag.toV1));
    },
  },
  'chainguard.platform.registry.Registry/ListEolTags': {
    successor: 'GET /registry/v2/tags',
    // v2 has no end-of-life call: a tag whose `deprecated` is true is one (the spec's own rule).
    run: async (input, c) => {
      const size = Math.min(Number(input.pageSize ?? 0) || EOL_PAGE_DEFAULT, EOL_PAGE_MAX);
      const after = input.pageToken ? eolToken.decode(str(input.pageToken)) : '';
      const eol = (await list(c, tags, input, { order_by: 'uid' })).filter((t) => t.deprecated === true).filter(tagKept(input)).filter((t) => str(t.uid) > after);
      const page = eol.slice(0, size);
      return { items: page.map(M.tag.toV1Eol), nextPageToken: eol.length > size ? eolToken.encode(str(page.at(-1)!.uid)) : '' };
    },
  },
  'chainguard.platform.registry.Registry/ListTagHistory': unimplemented('GET /registry/v2/tags', 'tag history has no source in serve (a tag keeps only its current digest); the closest is GET /registry/v2/tags?uidp.children_of=REPO, whose updateTime is the last change'),
  'chainguard.platform.registry.Registry/GetVulnReport': unimplemented(`GET ${ADVISORIES}`, VULN_REPORTS),
  'chainguard.platform.registry.Registry/GetRepoCountBySource': unimplemented('GET /registry/v2/repos', 'repo counts by source have no source in serve; the closest is GET /registry/v2/repos, whose totalCount counts them'),
  'chainguard.platform.registry.Registry/GetRepoTagsSummary': unimplemented('GET /registry/v2/tags', 'tag summaries have no source in serve; the closest is GET /registry/v2/tags?uidp.children_of=REPO'),
  ...Object.fromEntries(['GetSbom', 'GetRawSbom', 'GetHelm', 'GetChart', 'ListChartsByImageRepo', 'GetImageConfig', 'GetArchs', 'GetSize', 'ListManifestMetadata', 'GetManifestDigestCount', 'GetPackageVersionMetadata'].map((m) => [`chainguard.platform.registry.Registry/${m}`, unimplemented('GET /registry/v2/tags', IMAGE_CONTENTS)])),
  ...Object.fromEntries(['ListBuildReports', 'GetBuildStatus', 'GetUpdateStatus', 'GetSyncStatus', 'ListSyncStatuses'].map((m) => [`chainguard.platform.registry.Registry/${m}`, unimplemented('GET /registry/v2/repos', BUILDS)])),
  ...Object.fromEntries(['CreateDeployment', 'UpdateDeployment', 'GetDeployment', 'GetRegistrySettings', 'UpdateRegistrySettings'].map((m) => [`chainguard.platform.registry.Registry/${m}`, unimplemented('GET /registry/v2/repos', REGISTRY_SETTINGS)])),
  'chainguard.platform.registry.Vulnerabilities/ListVulnReports': unimplemented(`GET ${ADVISORIES}`, VULN_REPORTS),
  'chainguard.platform.registry.Vulnerabilities/GetRawVulnReport': unimplemented(`GET ${ADVISORIES}`, VULN_REPORTS),
  'chainguard.platform.registry.Vulnerabilities/ListVulnCountReports': unimplemented(`GET ${ADVISORIES}`, VULN_REPORTS),
  'chainguard.platform.registry.Vulnerabilities/ListCumulativeVulnCountReports': unimplemented(`GET ${ADVISORIES}`, VULN_REPORTS),

  // ---- chainguard.platform.events (the Terraform provider's subscription resource) ----
  'chainguard.platform.events.Subscriptions/Create': {
    successor: 'POST /events/v2/subscriptions',
    run: async (input, c) => M.subscription.toV1(await c.ops.create(subscriptions, c.principal, { parent: required(input, 'parentId', 'parent_id'), subscription: { sink: str(obj(input.subscription).sink) } })),
  },
  'chainguard.platform.events.Subscriptions/List': {
    successor: 'GET /events/v2/subscriptions',
    run: async (input, c) => items((await list(c, subscriptions, input)).map(M.subscription.toV1)),
  },
  'chainguard.platform.events.Subscriptions/Delete': removal(subscriptions, '/events/v2/subscriptions', 'id'),

  // ---- chainguard.platform.vulnerabilities.v1 ----
  'chainguard.platform.vulnerabilities.v1.Advisories/List': {
    successor: `GET ${ADVISORIES}`,
    run: async (input, c) => {
      const params: Record<string, string | string[]> = {};
      for (const [field, values] of Object.entries(input)) {
        if (['id', 'uidp', 'pageToken', 'pageSize', 'orderBy'].includes(field)) continue;
        const v2 = M.advisory.filters[field];
        if (!v2) throw invalidField(field, `has no v2 filter (v2 filters advisories by ${Object.keys(M.advisory.filters).join(' and ')} only)`);
        params[v2] = (values as string[]).map(str);
      }
      const order = M.advisory.orderBy[str(input.orderBy) || 'ORDER_BY_UNSPECIFIED'];
      if (!order) throw invalidField('order_by', `${str(input.orderBy)} has no v2 order (v2 orders by uid, creation and update time)`);
      if (input.id || input.uidp) {
        const found = await list(c, advisories, input, params);
        return { items: found.map(M.advisory.toV1), totalCount: String(found.length) };
      }
      const page = await c.ops.page(advisories, c.principal, {
        ...params, order_by: order,
        ...(input.pageSize ? { page_size: String(Number(input.pageSize)) } : {}),
        ...(input.pageToken ? { page_token: str(input.pageToken) } : {}),
      });
      return { items: page.items.map(M.advisory.toV1), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
    },
  },
  'chainguard.platform.vulnerabilities.v1.Advisories/Create': unimplemented(`GET ${ADVISORIES}`, `v2 advisories are read-only (serve's come from seed files); the closest is GET ${ADVISORIES}`),
  'chainguard.platform.vulnerabilities.v1.Advisories/Update': unimplemented(`GET ${ADVISORIES}/{uid}`, `v2 advisories are read-only; the closest is GET ${ADVISORIES}/{uid}`),
  'chainguard.platform.vulnerabilities.v1.Advisories/Delete': unimplemented(`GET ${ADVISORIES}/{uid}`, `v2 advisories are read-only; the closest is GET ${ADVISORIES}/{uid}`),
  'chainguard.platform.vulnerabilities.v1.Advisories/CreateAdvisoryEvent': unimplemented(`GET ${ADVISORIES}`, `advisory events have no source in serve; the closest is GET ${ADVISORIES}, and the events of GET /advisory/v2/documents`),
  'chainguard.platform.vulnerabilities.v1.Advisories/ListAdvisoryEvents': unimplemented(`GET ${ADVISORIES}`, `advisory events have no source in serve; the closest is GET ${ADVISORIES}, and the events of GET /advisory/v2/documents`),
  'chainguard.platform.vulnerabilities.v1.Advisories/UpdateAdvisoryEvent': unimplemented(`GET ${ADVISORIES}`, `advisory events have no source in serve; the closest is GET ${ADVISORIES}, and the events of GET /advisory/v2/documents`),
};
