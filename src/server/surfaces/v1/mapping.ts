// The v1 ↔ v2 field mapping, in one place (v1-transition.md §6): each v1 message as the proto3
// JSON of proto/platform/*/v1/ (lowerCamelCase), each v2 resource as its wire JSON. `toV1` turns
// what v2 answers into what v1 answers; `fromV1` turns a v1 resource into v2's create body
// fields; `replace` is the v2 update mask a v1 PUT (a whole resource) amounts to.
import { invalidField } from '../../../api/errors.js';
import * as S from '../../../api/schemas.js';
import type { Wire } from './operations.js';

type V1 = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const obj = (v: unknown): V1 => (v && typeof v === 'object' && !Array.isArray(v) ? (v as V1) : {});

/** Group ↔ Group: id ↔ uid; v1's kind and status have no v2 source; v2's times have no v1 field. */
export const group = {
  toV1: (g: Wire): V1 => {
    const w = g as S.Group;
    return { id: w.uid, name: w.name, description: w.description, resourceLimits: w.resourceLimits, verified: w.verified };
  },
  fromV1: (g: V1): Wire => ({ name: str(g.name), description: str(g.description) }),
  replace: ['name', 'description'],
};

/** Identity ↔ Identity: created_at/updated_at/last_seen ↔ createTime/updateTime/lastSeenTime; claim_match ↔ claimMatch (exact or pattern forms). */
export const identity = {
  toV1: (i: Wire): V1 => {
    const w = i as S.Identity;
    return {
      id: w.uid, name: w.name, description: w.description,
      createdAt: w.createTime, updatedAt: w.updateTime, ...(w.lastSeenTime ? { lastSeen: w.lastSeenTime } : {}),
      claimMatch: S.setClaimMatchFields(w.claimMatch),
    };
  },
  fromV1: (i: V1): Wire => {
    for (const other of ['static', 'servicePrincipal', 'awsIdentity'] as const) {
      if (i[other] !== undefined) throw invalidField(`identity.${other}`, 'has no v2 field in serve: v2 identities match a claimMatch');
    }
    return { name: str(i.name), description: str(i.description), claimMatch: S.setClaimMatchFields(obj(i.claimMatch)) };
  },
  // The whole claimMatch: a v1 update replaces the identity.
  replace: ['name', 'description', 'claimMatch'],
};

/** Role ↔ Role: v1 has no timestamps. */
export const role = {
  toV1: (r: Wire): V1 => {
    const w = r as S.Role;
    return { id: w.uid, name: w.name, description: w.description, capabilities: w.capabilities ?? [] };
  },
  fromV1: (r: V1): Wire => ({ name: str(r.name), description: str(r.description), capabilities: strings(r.capabilities) }),
  replace: ['name', 'description', 'capabilities'],
};

/** An expanded v2 reference ({uid, name, description}) as the v1 Group or Role it stands for. */
const reference = (ref: { uid: string; name: string; description?: string | undefined }): V1 => ({ id: ref.uid, name: ref.name, description: ref.description ?? '' });

/**
 * RoleBinding: v1 names identity and role by uid (identity, role ↔ identityUid, roleUid in;
 * expanded objects out); `group` is deprecated in v1 and is the binding's parent. A list item
 * (RoleBindingList.Binding) carries the group and role expanded and the identity's claim.
 */
export const roleBinding = {
  toV1: (b: Wire): V1 => {
    const w = b as S.RoleBinding;
    return { id: w.uid, identity: w.identity.uid, group: w.group.uid, role: w.role.uid };
  },
  toV1Item: (b: Wire): V1 => {
    const w = b as S.RoleBinding;
    return {
      id: w.uid, group: reference(w.group), identity: w.identity.uid, role: reference(w.role),
      claimMatchIssuer: w.identity.issuer, claimMatchSubject: w.identity.subject, createdAt: w.createTime,
    };
  },
  fromV1: (b: V1): Wire => ({ identityUid: str(b.identity), roleUid: str(b.role) }),
};

const CORRELATION_PREFIX = 'CORRELATION_RULE_';

/** IdentityProvider: oidc.correlation_rule's values carry the CORRELATION_RULE_ prefix in v1; client_secret is write-only in both; v1's scim has no v2 source. */
export const identityProvider = {
  toV1: (p: Wire): V1 => {
    const w = p as S.IdentityProvider;
    return {
      id: w.uid, name: w.name, description: w.description, defaultRole: w.defaultRole,
      oidc: {
        issuer: w.oidc.issuer, clientId: w.oidc.clientId, additionalScopes: w.oidc.additionalScopes, groupsClaim: w.oidc.groupsClaim,
        correlationRule: `${CORRELATION_PREFIX}${w.oidc.correlationRule}`, pkceEnabled: w.oidc.pkceEnabled,
      },
    };
  },
  fromV1: (p: V1): Wire => {
    const oidc = obj(p.oidc);
    const rule = str(oidc.correlationRule).replace(CORRELATION_PREFIX, '');
    return {
      name: str(p.name), description: str(p.description), defaultRole: str(p.defaultRole),
      oidc: {
        issuer: str(oidc.issuer), clientId: str(oidc.clientId), additionalScopes: strings(oidc.additionalScopes),
        groupsClaim: str(oidc.groupsClaim), pkceEnabled: oidc.pkceEnabled === true,
        ...(str(oidc.clientSecret) ? { clientSecret: str(oidc.clientSecret) } : {}),
        ...(rule && rule !== 'UNSPECIFIED' ? { correlationRule: rule } : {}),
      },
    };
  },
  /** A PUT without client_secret keeps the secret (it is never read back, so a client cannot echo it); one without correlation_rule keeps the rule. */
  replace: (fields: Wire): string[] => {
    const oidc = obj(fields.oidc);
    return [
      'name', 'description', 'defaultRole', 'oidc.issuer', 'oidc.clientId', 'oidc.additionalScopes', 'oidc.groupsClaim', 'oidc.pkceEnabled',
      ...(oidc.clientSecret !== undefined ? ['oidc.clientSecret'] : []),
      ...(oidc.correlationRule !== undefined ? ['oidc.correlationRule'] : []),
    ];
  },
};

/** GroupInvite: expiration ↔ expirationTime, role (a uid in, a Role out) ↔ roleUid / role; the list's StoredGroupInvite has no code. */
export const groupInvite = {
  toV1: (i: Wire): V1 => {
    const w = i as S.GroupInvite;
    return { id: w.uid, expiration: w.expirationTime, keyId: w.keyId, role: reference(w.role), ...(w.code ? { code: w.code } : {}) };
  },
  toV1Item: (i: Wire): V1 => {
    const w = i as S.GroupInvite;
    return { id: w.uid, expiration: w.expirationTime, keyId: w.keyId, role: reference(w.role), email: w.email, createdAt: w.createTime, singleUse: w.singleUse };
  },
  fromV1: (i: V1): Wire => ({
    roleUid: str(i.role), ttl: str(i.ttl),
    ...(str(i.email) ? { email: str(i.email) } : {}),
    singleUse: i.singleUse === true,
  }),
};

const PROVIDERS = ['amazon', 'google', 'azure', 'github', 'chainguard'] as const;
const READY = { READY: 'Ready', NOT_READY: 'NotReady' } as const;

/** AccountAssociations: group ↔ uid (the group's); the provider blocks have the same JSON in both. */
export const accountAssociation = {
  toV1: (a: Wire): V1 => {
    const w = a as S.AccountAssociation;
    const out: V1 = { group: w.uid, name: w.name, description: w.description };
    for (const p of PROVIDERS) if (w[p] !== undefined) out[p] = w[p];
    return out;
  },
  fromV1: (a: V1): Wire => {
    const out: Wire = { name: str(a.name), ...(str(a.description) ? { description: str(a.description) } : {}) };
    for (const p of PROVIDERS) if (a[p] !== undefined) out[p] = a[p];
    return out;
  },
  replace: ['name', 'description', ...PROVIDERS],
  /** Check: account_type ↔ providerType, ready (Ready / NotReady) ↔ status (READY / NOT_READY). */
  checkFromV1: (accountType: unknown): Wire => {
    if (accountType !== 'GOOGLE' && accountType !== 'AMAZON' && accountType !== 'AZURE') throw invalidField('account_type', 'must be GOOGLE, AMAZON or AZURE');
    return { providerType: accountType };
  },
  checkToV1: (c: Wire): V1 => ({ ready: READY[c.status as keyof typeof READY], reason: c.reason, message: c.message }),
};

/** Repo: create_time ↔ createTime; v1's catalog tier, bundles, readme, sync and overlay settings have no v2 source. */
/** v1's CatalogTier is v2's without the prefix; UNKNOWN is v2's UNSPECIFIED. */
const tierToV1 = (v: unknown) => (typeof v === 'string' && v !== 'CATALOG_TIER_UNSPECIFIED' ? v.replace(/^CATALOG_TIER_/, '') : undefined);
const tierFromV1 = (v: unknown) => (typeof v === 'string' && v !== 'UNKNOWN' ? `CATALOG_TIER_${v}` : undefined);
/** The sync configuration a caller sets (v1 and v2 share these names). */
const syncFromV1 = (v: unknown) => {
  const sc = obj(v);
  return str(sc.source) ? { source: str(sc.source), ...Object.fromEntries(['google', 'amazon', 'azure'].filter((k) => str(sc[k])).map((k) => [k, sc[k]])) } : undefined;
};

/** Repo: id ↔ uid; catalog_tier without its v2 prefix; bundles, aliases, active_tags and sync_config as stored. v1's readme has no v2 field. */
export const repo = {
  toV1: (r: Wire): V1 => {
    const w = r as S.Repo & Record<string, unknown>;
    return {
      id: w.uid, name: w.name, description: w.description, createTime: w.createTime, ...(tierToV1(w.catalogTier) ? { catalogTier: tierToV1(w.catalogTier) } : {}),
      bundles: strings(w.bundles), aliases: strings(w.aliases), activeTags: strings(w.activeTags), ...(w.sync_config ? { sync_config: w.sync_config } : {}),
    };
  },
  /** v2's create body fields (the REST body spells sync_config as published). */
  fromV1: (r: V1): Wire => ({
    name: str(r.name), description: str(r.description), catalogTier: tierFromV1(r.catalogTier),
    bundles: strings(r.bundles), aliases: strings(r.aliases), activeTags: strings(r.activeTags), sync_config: syncFromV1(r.sync_config),
  }),
  /** The same fields for v2's update, which names syncConfig as its domain field. */
  updateFromV1: (r: V1): Wire => {
    const { sync_config: sync, ...fields } = repo.fromV1(r);
    return { ...fields, syncConfig: sync };
  },
  replace: ['name', 'description', 'catalogTier', 'bundles', 'aliases', 'activeTags', 'syncConfig'],
};

/** Tag: last_updated ↔ updateTime; v1's bundles have no v2 source. An end-of-life tag (EolTag) is a tag whose `deprecated` is true. */
export const tag = {
  toV1: (t: Wire): V1 => {
    const w = t as S.Tag;
    return { id: w.uid, name: w.name, digest: w.digest, lastUpdated: w.updateTime, deprecated: w.deprecated, bundles: strings((w as Record<string, unknown>).bundles) };
  },
  /** v2's create body fields: v1 creates a tag with no digest (the provider's image_tag sends none). */
  fromV1: (t: V1): Wire => ({ name: str(t.name), digest: str(t.digest), deprecated: t.deprecated === true, bundles: strings(t.bundles) }),
  replace: ['name', 'digest', 'deprecated', 'bundles'],
  /** The package and grace-period fields of an EolTag have no v2 source: left empty. */
  toV1Eol: (t: Wire): V1 => {
    const w = t as S.Tag;
    return { id: w.uid, name: w.name };
  },
};

/** Advisory: advisory_id ↔ advisoryId, artifact_name ↔ artifactName, created_at/updated_at ↔ createTime/updateTime. */
export const advisory = {
  toV1: (a: Wire): V1 => {
    const w = a as S.Advisory;
    return { id: w.uid, advisoryId: w.advisoryId, artifactName: w.artifactName, ...(w.createTime ? { createdAt: w.createTime } : {}), updatedAt: w.updateTime };
  },
  /** v1's order_by values as v2's order_by (ID is the uid). */
  orderBy: {
    ORDER_BY_UNSPECIFIED: 'uid', ID_ASC: 'uid', ID_DESC: 'uid desc',
    CREATED_AT_ASC: 'created_at', CREATED_AT_DESC: 'created_at desc', UPDATED_AT_ASC: 'update_time', UPDATED_AT_DESC: 'update_time desc',
  } as Record<string, string>,
  /** AdvisoryFilter fields with a v2 filter: artifact_name → artifactNames, advisory_ids → advisoryIds. */
  filters: { artifactName: 'artifactNames', advisoryIds: 'advisoryIds' } as Record<string, string>,
};

/** Subscription: id ↔ uid, sink as it is. */
export const subscription = {
  toV1: (w: Wire): V1 => ({ id: w.uid, sink: w.sink }),
};
