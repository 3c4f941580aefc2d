// The seed format: one document format for `pctl serve --seed`, `--demo` and `pctl serve
// export` (CLI-CONTRACT.md, "Seed files"), and the manifest of `pctl export`, `pctl diff` and
// `pctl apply` (docs/org-as-code.md). A document is validated as a whole (zod for the shape,
// then names, references and duplicates) before anything is written; every bad entry is
// reported by its path (`organizations[0].groups[1].name: must match …`).
//
// Extensions to the contract's example (all optional, all round-trip through export):
// - `roleBindings: [{identity, role}]` on any group: `identity` names an identity of this
//   group or of an ancestor (the nearest wins), or, for any other identity, its path from
//   the organization (`acme/platform/deployer`); `role` is a built-in role name, or a
//   custom role named the same way.
// - `roles: [{name, description, capabilities}]` on any group: custom roles.
// - `updateTime` on tags and advisories (RFC 3339), so that a data set keeps its history.
// Manifests only:
// - an entry of `organizations` may name a group below an organization by its path
//   (`acme/platform`): what `pctl export acme/platform` writes;
// - `uid` on groups, identities, roles, identity providers and repos: an anchor that
//   matches an existing resource even when its name changed (a seed ignores it).
//
// Field rules are the API's own, from schemas.ts. Plain data and zod: no server code, so
// that the CLI's manifest commands and the server's seed loader share it.
import * as z from 'zod';
import { BUILTIN_ROLES, CAPABILITIES } from './capabilities.js';
import type { FieldViolation } from './errors.js';
import {
  AccountAssociationFields as AccountAssociationFieldsSchema, AwsIdentity, SERVICE_PRINCIPALS, AdvisoryDocument, GROUP_NAME_PATTERN, CORRELATION_RULES, DIGEST_RE, emailProblem, DIGEST_RULE, descriptionProblem, ECOSYSTEMS, FILTER_VALUE_RE, FILTER_VALUE_RULE, VulnerabilityMetadata, groupNameProblem, issuerProblem, plainNameProblem, repoNameProblem, ruled,
  CreateClaimMatch, ORG_KINDS, StaticKeys, TAG_NAME_RE, TAG_NAME_RULE, Timestamp, uidRefProblem, sinkProblem,
} from './schemas.js';
import type { AccountAssociationFields } from './schemas.js';

// ---- the document ----

const Description = ruled(descriptionProblem);
const PlainName = ruled(plainNameProblem);
/** A manifest's anchor to an existing resource: matched by uid first, so a rename is an update. */
const Anchor = ruled(uidRefProblem).optional().meta({ description: 'Manifests: the uid of an existing resource, so that a rename is an update (export never writes it)' });

const IDENTITY_RELATIONSHIPS = ['claimMatch', 'staticKeys', 'awsIdentity', 'servicePrincipal'] as const;

const SeedTag = z.strictObject({
  name: z.string().regex(TAG_NAME_RE, TAG_NAME_RULE),
  digest: z.string().regex(DIGEST_RE, DIGEST_RULE),
  deprecated: z.boolean().optional(),
  updateTime: Timestamp.optional(),
});

const SeedRepo = z.strictObject({
  uid: Anchor,
  name: ruled(repoNameProblem),
  description: Description.optional(),
  tags: z.array(SeedTag).optional(),
});

/**
 * One relationship, as the published Identity has it: a claimMatch, static keys (the issuer's
 * public JWKS: no secret), an AWS identity or a service principal.
 */
const SeedIdentity = z.strictObject({
  uid: Anchor,
  name: PlainName,
  description: Description.optional(),
  email: ruled(emailProblem).optional(),
  // As on create: exact issuer and subject, or their patterns, and the optional audience and claims.
  claimMatch: CreateClaimMatch.optional(),
  // As on create: expirationTime in the future, at most 365 days after the identity is made.
  staticKeys: StaticKeys.optional(),
  awsIdentity: AwsIdentity.optional(),
  servicePrincipal: z.enum(SERVICE_PRINCIPALS, `must be one of ${SERVICE_PRINCIPALS.join(', ')}`).optional(),
}).check((ctx) => {
  const set = IDENTITY_RELATIONSHIPS.filter((r) => ctx.value[r] !== undefined);
  if (set.length !== 1) ctx.issues.push({ code: 'custom', path: ['claimMatch'], input: ctx.value, message: `exactly one of ${IDENTITY_RELATIONSHIPS.join(', ')} must be set` });
});

const KNOWN_CAPABILITIES = new Set<string>(CAPABILITIES);
const SeedRole = z.strictObject({
  uid: Anchor,
  name: PlainName.refine((s) => !BUILTIN_ROLES.some((r) => r.name === s), 'must not be the name of a built-in role'),
  description: Description.optional(),
  capabilities: z.array(z.string().refine((c) => KNOWN_CAPABILITIES.has(c), 'is not a known capability').meta({ enum: [...CAPABILITIES] })),
});

const SeedRoleBinding = z.strictObject({
  identity: z.string().min(1, 'must not be empty'),
  role: z.string().min(1, 'must not be empty'),
});

/** `defaultRole` names a role as bindings do: built in, of this group or an ancestor, or by path. The secret is write-only: exports leave it out. */
const SeedIdentityProvider = z.strictObject({
  uid: Anchor,
  name: PlainName,
  description: Description.optional(),
  defaultRole: z.string().min(1, 'must not be empty'),
  oidc: z.strictObject({
    issuer: ruled(issuerProblem),
    clientId: z.string().min(1, 'must not be empty'),
    clientSecret: z.string().optional(),
    additionalScopes: z.array(z.string().min(1)).optional(),
    groupsClaim: z.string().optional(),
    correlationRule: z.enum(CORRELATION_RULES).optional(),
    pkceEnabled: z.boolean().optional(),
  }),
});

/**
 * An invite: `code` (a seed author's chosen code) or `codeSha256` (what export writes: the
 * hash serve keeps, so a re-seeded invite still takes its old code, which export never shows).
 */
const SeedInvite = z.strictObject({
  role: z.string().min(1, 'must not be empty'),
  email: ruled(emailProblem).optional(),
  expirationTime: Timestamp,
  singleUse: z.boolean().optional(),
  code: z.string().min(16, 'must be at least 16 characters').optional(),
  codeSha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex characters').optional(),
}).refine((i) => !(i.code && i.codeSha256), 'give code or codeSha256, not both');

export interface SeedGroup {
  uid?: string | undefined;
  name: string;
  description?: string | undefined;
  verified?: boolean | undefined;
  kind?: (typeof ORG_KINDS)[number] | undefined;
  identities?: z.infer<typeof SeedIdentity>[] | undefined;
  roles?: z.infer<typeof SeedRole>[] | undefined;
  roleBindings?: z.infer<typeof SeedRoleBinding>[] | undefined;
  identityProviders?: z.infer<typeof SeedIdentityProvider>[] | undefined;
  invites?: z.infer<typeof SeedInvite>[] | undefined;
  accountAssociation?: AccountAssociationFields | undefined;
  repos?: z.infer<typeof SeedRepo>[] | undefined;
  /** Webhook subscriptions of the group (docs/events.md). */
  subscriptions?: { sink: string }[] | undefined;
  groups?: SeedGroup[] | undefined;
}

/** A group entry whose name follows `nameRule`; its child groups are plain groups. */
const groupSchema = (nameRule: z.ZodType<string>): z.ZodType<SeedGroup> => z.strictObject({
  name: nameRule,
  uid: Anchor,
  description: Description.optional(),
  verified: z.boolean().optional().meta({ description: 'Whether the group is verified (the published Group.verified); false when left out' }),
  kind: z.enum(ORG_KINDS, `must be one of ${ORG_KINDS.join(', ')}`).optional()
    .meta({ description: 'An organization\'s kind (the published OrgKind), on a verified organization only: its groups inherit it' }),
  identities: z.array(SeedIdentity).optional().meta({ description: 'Identities of this group, matched by name' }),
  roles: z.array(SeedRole).optional().meta({ description: 'Custom roles of this group, matched by name' }),
  roleBindings: z.array(SeedRoleBinding).optional().meta({ description: 'Roles granted in this group, matched by (identity, role)' }),
  identityProviders: z.array(SeedIdentityProvider).optional().meta({ description: 'OIDC sign-in sources of this group, matched by name; clientSecret is write-only' }),
  invites: z.array(SeedInvite).optional().meta({ description: 'Seeds only: apply leaves invites alone (a code is shown once)' }),
  accountAssociation: AccountAssociationFieldsSchema.optional().meta({ description: 'The cloud accounts of this group (at most one association)' }),
  repos: z.array(SeedRepo).optional().meta({ description: 'Repos of this group; apply creates them, updates their descriptions, and deletes the others with --prune' }),
  subscriptions: z.array(z.strictObject({ sink: ruled(sinkProblem) })).optional().meta({ description: 'Seeds only: webhook sinks of this group (docs/events.md); apply leaves subscriptions alone' }),
  get groups() {
    return z.array(SeedGroupSchema).optional().meta({ description: 'Child groups, nested to any depth' });
  },
});
const SeedGroupSchema: z.ZodType<SeedGroup> = groupSchema(ruled(groupNameProblem).meta({ description: 'Group name', pattern: GROUP_NAME_PATTERN }));

/** `acme`, or (manifests) `acme/platform`: each segment a group name. */
const groupPathProblem = (s: string) => {
  for (const segment of s.split('/')) {
    const problem = groupNameProblem(segment);
    if (problem) return s.includes('/') ? `each segment of the path ${problem}` : problem;
  }
  return undefined;
};
/** An organization, or (manifests) the subtree of the group at a name path. */
const SeedOrganizationSchema = groupSchema(ruled(groupPathProblem).meta({ description: 'An organization name, or (manifests) the name path of a group below one: acme/platform' }));

const SeedAdvisory = z.strictObject({
  advisoryId: z.string().regex(FILTER_VALUE_RE, FILTER_VALUE_RULE),
  artifactName: z.string().regex(FILTER_VALUE_RE, FILTER_VALUE_RULE),
  updateTime: Timestamp.optional(),
});

/** A library and its versions, oldest first: the last one is its latestVersion. */
const SeedLibrary = z.strictObject({
  name: z.string().regex(FILTER_VALUE_RE, FILTER_VALUE_RULE),
  ecosystem: z.string().transform((s) => s.toUpperCase()).pipe(z.enum(ECOSYSTEMS, `must be one of ${ECOSYSTEMS.join(', ')}`)),
  description: ruled(descriptionProblem).optional(),
  versions: z.array(z.strictObject({
    version: z.string().regex(FILTER_VALUE_RE, FILTER_VALUE_RULE),
    description: ruled(descriptionProblem).optional(),
    sizeBytes: z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,19}$/, 'must be a decimal integer')]).transform(String).optional(),
    updateTime: Timestamp.optional(),
  })).optional(),
});

const SeedDocumentSchema = z.strictObject({
  organizations: z.array(SeedOrganizationSchema).optional().meta({ description: 'Organizations (root groups), or subtrees by path, with everything in them' }),
  advisories: z.array(SeedAdvisory).optional(),
  libraries: z.array(SeedLibrary).optional(),
  advisoryDocuments: z.array(AdvisoryDocument).optional(),
  vulnerabilityMetadata: z.array(VulnerabilityMetadata).optional(),
});
export type SeedLibrary = z.output<typeof SeedLibrary>;

export type SeedRepo = z.infer<typeof SeedRepo>;
export type SeedIdentity = z.infer<typeof SeedIdentity>;
export type SeedRole = z.infer<typeof SeedRole>;
export type SeedRoleBinding = z.infer<typeof SeedRoleBinding>;
export type SeedAdvisory = z.infer<typeof SeedAdvisory>;
export type SeedDocument = z.infer<typeof SeedDocumentSchema>;

/** A seed that does not validate: every problem, each named by its path in the document. */
export class SeedValidationError extends Error {
  constructor(readonly violations: FieldViolation[]) {
    const first = violations[0];
    super(
      `the seed is invalid (${violations.length} problem${violations.length === 1 ? '' : 's'}); nothing was written` +
        (first ? `: ${first.field}: ${first.description}` : ''),
    );
    this.name = 'SeedValidationError';
  }
}

/** `organizations[0].groups[1].name` */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(document)';
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    if (issue.message.endsWith('received undefined')) return 'is required';
    const what = issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`;
    return `must be ${what}`;
  }
  return issue.message;
}

/** What a document is read for: a seed fills an empty data dir, a manifest describes what exists. */
export type DocumentUse = 'seed' | 'manifest';

/**
 * Validates a parsed seed document (from YAML or JSON) as a whole. Returns it typed, or
 * throws a SeedValidationError listing every bad entry by its path.
 */
export function validateSeed(raw: unknown): SeedDocument {
  return validateDocument(raw, 'seed');
}

/** validateSeed, for either use: a manifest may name subtrees by path and must name siblings apart. */
function validateDocument(raw: unknown, use: DocumentUse): SeedDocument {
  const { doc, problems } = checkDocument(raw, use);
  if (!doc) throw new SeedValidationError(problems);
  return doc;
}

/** The document, typed, when it is valid; else every problem, each by its path. */
export function checkDocument(raw: unknown, use: DocumentUse): { doc?: SeedDocument; problems: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const result = SeedDocumentSchema.safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) violations.push({ field: formatPath([...issue.path, key]), description: 'is not a known field' });
      } else {
        violations.push({ field: formatPath(issue.path), description: describeIssue(issue) });
      }
    }
  }
  // Names and references too when the shape is wrong, so that one run reports every mistake;
  // a shape too broken to follow (a claimMatch that is not an object) leaves them for later.
  const doc = (result.success ? result.data : raw) as SeedDocument;
  const later: FieldViolation[] = [];
  try {
    (doc.organizations ?? []).forEach((org, i) => {
      if (use === 'seed' && org.name.includes('/')) {
        later.push({ field: `organizations[${i}].name`, description: 'must be an organization name: a seed fills an empty data dir (a path names a group below an organization in manifests only)' });
      }
    });
    checkKinds(doc, later);
    if (use === 'manifest') checkSiblingNames(doc, later);
    checkReferences(doc, later, use);
  } catch (err) {
    if (result.success) throw err;
  }
  const problems = [...violations, ...later.filter((v) => !violations.some((w) => w.field === v.field))];
  return problems.length || !result.success ? { problems } : { doc: result.data, problems };
}

/** A kind is an organization's alone, set once it is verified (the API's rules): on an organization entry that says `verified: true`. */
function checkKinds(doc: SeedDocument, out: FieldViolation[]): void {
  const walk = (g: SeedGroup, path: string, organization: boolean) => {
    if (g.kind !== undefined) {
      if (!organization) out.push({ field: `${path}.kind`, description: "is inherited from the organization: only an organization's kind may be set" });
      else if (g.verified !== true) out.push({ field: `${path}.kind`, description: 'may be set on a verified organization only (add verified: true)' });
    }
    (g.groups ?? []).forEach((c, i) => walk(c, `${path}.groups[${i}]`, false));
  };
  (doc.organizations ?? []).forEach((org, i) => walk(org, `organizations[${i}]`, !org.name.includes('/')));
}

/** A manifest matches groups by name path, so siblings must be named apart (organizations always are). */
function checkSiblingNames(doc: SeedDocument, out: FieldViolation[]): void {
  const walk = (g: SeedGroup, path: string) => {
    checkUnique(g.groups, (c) => c.name, `${path}.groups`, 'same name under one parent: a manifest names groups by their path', out);
    (g.groups ?? []).forEach((c, i) => walk(c, `${path}.groups[${i}]`));
  };
  (doc.organizations ?? []).forEach((org, i) => walk(org, `organizations[${i}]`));
}

function checkUnique<T>(items: readonly T[] | undefined, key: (t: T) => string, path: string, what: string, out: FieldViolation[]): void {
  const seen = new Map<string, number>();
  (items ?? []).forEach((item, i) => {
    const k = key(item);
    const first = seen.get(k);
    if (first === undefined) seen.set(k, i);
    else out.push({ field: `${path}[${i}]`, description: `duplicates ${path}[${first}] (${what})` });
  });
}

export const ROLE_NAMES: ReadonlySet<string> = new Set(BUILTIN_ROLES.map((r) => r.name));

/**
 * Each group's key for references: its name path (`acme/platform`). The API lets siblings share
 * a name, and so do seeds (what export writes, seed reads); a group whose name path a sibling
 * took first gets `acme/web#2`, so that plain names resolve inside the right one. A path
 * reference through such a name is ambiguous (`duplicated`).
 */
export function groupKeys(doc: SeedDocument): { keyOf: Map<SeedGroup, string>; duplicated: Set<string> } {
  const keyOf = new Map<SeedGroup, string>();
  const seen = new Map<string, number>();
  const duplicated = new Set<string>();
  const walk = (g: SeedGroup, namePath: string) => {
    const n = (seen.get(namePath) ?? 0) + 1;
    seen.set(namePath, n);
    if (n > 1) duplicated.add(namePath);
    keyOf.set(g, n === 1 ? namePath : `${namePath}#${n}`);
    for (const child of g.groups ?? []) walk(child, `${namePath}/${child.name}`);
  };
  for (const org of doc.organizations ?? []) walk(org, org.name);
  return { keyOf, duplicated };
}

/**
 * Names, duplicates and references zod cannot see: unique names where the API has them,
 * bindings that resolve. In a manifest, a path to a group outside its subtrees names
 * something on the server: the plan looks it up.
 */
function checkReferences(doc: SeedDocument, out: FieldViolation[], use: DocumentUse): void {
  const orgs = doc.organizations ?? [];
  checkUnique(orgs, (g) => g.name, 'organizations', `same name`, out);
  const { keyOf, duplicated } = groupKeys(doc);
  // Every group by its name path (`acme/platform`), with its identities, for path references.
  const identitiesByGroupPath = new Map<string, Set<string>>();
  const rolesByGroupPath = new Map<string, Set<string>>();
  const claims = new Map<string, string>();
  const walk = (g: SeedGroup, path: string) => {
    const namePath = keyOf.get(g)!;
    checkUnique(g.identities, (i) => i.name, `${path}.identities`, 'same name in one group', out);
    checkUnique(g.repos, (r) => r.name, `${path}.repos`, 'same name in one group', out);
    checkUnique(g.roles, (r) => r.name, `${path}.roles`, 'same name in one group', out);
    const roleNames = rolesByGroupPath.get(namePath) ?? new Set<string>();
    for (const r of g.roles ?? []) roleNames.add(r.name);
    rolesByGroupPath.set(namePath, roleNames);
    const names = identitiesByGroupPath.get(namePath) ?? new Set<string>();
    for (const i of g.identities ?? []) names.add(i.name);
    identitiesByGroupPath.set(namePath, names);
    (g.identities ?? []).forEach((identity, i) => {
      // Patterns may overlap (the exchange decides: docs/sign-in.md); an exact pair is one identity's.
      if (identity.claimMatch?.issuer === undefined || identity.claimMatch.subject === undefined) return;
      const key = `${identity.claimMatch.issuer}\n${identity.claimMatch.subject}`;
      const first = claims.get(key);
      if (first) out.push({ field: `${path}.identities[${i}].claimMatch`, description: `duplicates the claimMatch of ${first} (an issuer and subject identify one identity)` });
      else claims.set(key, `${path}.identities[${i}]`);
    });
    (g.repos ?? []).forEach((repo, r) => checkUnique(repo.tags, (t) => t.name, `${path}.repos[${r}].tags`, 'same name in one repo', out));
    (g.groups ?? []).forEach((child, i) => walk(child, `${path}.groups[${i}]`));
  };
  orgs.forEach((org, i) => walk(org, `organizations[${i}]`));
  // A path reference (`acme/web/bot`) through a name path two sibling groups share.
  const ambiguous = (ref: string, at: string) => {
    const gp = ref.includes('/') ? ref.slice(0, ref.lastIndexOf('/')) : '';
    if (!duplicated.has(gp)) return false;
    out.push({ field: at, description: `is ambiguous: more than one group has the path ${gp}; name it from within its group` });
    return true;
  };

  const roots = orgs.map((o) => o.name);
  const outside = (ref: string) => {
    if (use !== 'manifest' || !ref.includes('/')) return false;
    const gp = ref.slice(0, ref.lastIndexOf('/'));
    return !roots.some((root) => gp === root || gp.startsWith(`${root}/`));
  };

  const checkBindings = (g: SeedGroup, path: string, chain: string[]) => {
    const groupPaths = [...chain].reverse(); // nearest first
    (g.roleBindings ?? []).forEach((b, i) => {
      const at = `${path}.roleBindings[${i}]`;
      if (ambiguous(b.role, `${at}.role`) || ambiguous(b.identity, `${at}.identity`)) return;
      if (!ROLE_NAMES.has(b.role) && !outside(b.role) && resolveRef(b.role, groupPaths, (gp, name) => rolesByGroupPath.get(gp)?.has(name) ?? false) === undefined) {
        out.push({ field: `${at}.role`, description: `must be a built-in role (${[...ROLE_NAMES].join(', ')}) or a role of this group, an ancestor, or a path (org/group/…/role): ${b.role}` });
      }
      if (!outside(b.identity) && resolveRef(b.identity, groupPaths, (gp, name) => identitiesByGroupPath.get(gp)?.has(name) ?? false) === undefined) {
        out.push({ field: `${at}.identity`, description: `names no identity of this group or its ancestors, nor an identity path (org/group/…/identity): ${b.identity}` });
      }
    });
    const checkRole = (role: string, at: string) => {
      if (!ROLE_NAMES.has(role) && !outside(role) && !ambiguous(role, at) && resolveRef(role, groupPaths, (gp, name) => rolesByGroupPath.get(gp)?.has(name) ?? false) === undefined) {
        out.push({ field: at, description: `must be a built-in role (${[...ROLE_NAMES].join(', ')}) or a role of this group, an ancestor, or a path (org/group/…/role): ${role}` });
      }
    };
    (g.identityProviders ?? []).forEach((p, i) => checkRole(p.defaultRole, `${path}.identityProviders[${i}].defaultRole`));
    (g.invites ?? []).forEach((inv, i) => checkRole(inv.role, `${path}.invites[${i}].role`));
    checkUnique(g.identityProviders, (p) => p.name, `${path}.identityProviders`, 'same name in one group', out);
    checkUnique(g.roleBindings, (b) => `${b.identity}\n${b.role}`, `${path}.roleBindings`, 'same identity and role', out);
    (g.groups ?? []).forEach((child, i) => checkBindings(child, `${path}.groups[${i}]`, [...chain, keyOf.get(child)!]));
  };
  orgs.forEach((org, i) => checkBindings(org, `organizations[${i}]`, [keyOf.get(org)!]));

  checkUnique(doc.advisories, (a) => `${a.advisoryId}\n${a.artifactName}`, 'advisories', 'same advisoryId and artifactName', out);
  checkUnique(doc.libraries, (l) => `${l.ecosystem}\n${l.name}`, 'libraries', 'same name in one ecosystem', out);
  (doc.libraries ?? []).forEach((l, i) => checkUnique(l.versions, (v) => v.version, `libraries[${i}].versions`, 'same version', out));
  checkUnique(doc.advisoryDocuments, (d) => d.id, 'advisoryDocuments', 'same package id', out);
  checkUnique(doc.vulnerabilityMetadata, (m) => m.id, 'vulnerabilityMetadata', 'same id', out);
}

/**
 * Resolves a binding's identity (or custom role) reference: a plain name found in the
 * nearest group of `groupPaths` (self first, then ancestors), else a path
 * `org/group/…/name`. Returns [group name path, name].
 */
export function resolveRef(ref: string, groupPaths: string[], has: (groupPath: string, name: string) => boolean): [string, string] | undefined {
  for (const gp of groupPaths) if (has(gp, ref)) return [gp, ref];
  const slash = ref.lastIndexOf('/');
  if (slash > 0) {
    const gp = ref.slice(0, slash);
    const name = ref.slice(slash + 1);
    if (has(gp, name)) return [gp, name];
  }
  return undefined;
}

/**
 * The JSON Schema of the format, for editors (docs/manifest.schema.json, written by
 * `npm run gen`). Rules zod checks in code (name rules, references) are left to pctl.
 */
export function seedJsonSchema(): string {
  const schema = z.toJSONSchema(SeedDocumentSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  return `${JSON.stringify({ ...schema, title: 'pctl manifest and seed file (docs/org-as-code.md)' }, null, 2)}\n`;
}
