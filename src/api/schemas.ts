// The wire contract: every resource, create body and list envelope of the API, once.
// The server validates requests and shapes responses with these; the client validates
// responses with them. Response schemas are loose (unknown fields pass through, so a
// newer server does not break an older client); request schemas are strict (a typo in
// a field name is an error, not a silent no-op).
import * as z from 'zod';

/** The group-name rule of the spec, quoted verbatim in errors. */
export const GROUP_NAME_PATTERN = '^[a-z0-9 ._-]{1,}$';
export const GROUP_NAME_RE = /^[a-z0-9 ._-]{1,}$/;
export const GROUP_NAME_RULE = `must match ${GROUP_NAME_PATTERN}`;

/** Repo names: lower-case and path-like (`library/nginx`), at most 255 characters. */
export const REPO_NAME_PATTERN = '^[a-z0-9][a-z0-9._/-]*$';
export const REPO_NAME_RE = /^[a-z0-9][a-z0-9._/-]*$/;

/** Tag names, as OCI distribution defines them (at most 128 characters). */
export const TAG_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
export const TAG_NAME_RULE = 'must match ^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$';

/** Tag digests: `sha256:` + 64 lower-case hex (71 characters, no more, no less). */
export const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;
export const DIGEST_RULE = 'must be sha256: followed by 64 lower-case hex characters';

/** RFC 3339 UTC with milliseconds, as the server writes it: 2026-11-22T05:52:35.123Z. */
export const Timestamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/, 'must be an RFC 3339 timestamp');

const Uid = z.string().min(1);

export const Group = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  resourceLimits: z.record(z.string(), z.unknown()).default({}),
  verified: z.boolean().default(false),
  kind: z.string().optional(),
  status: z.string().optional(),
  createTime: Timestamp,
  updateTime: Timestamp,
});
export type Group = z.infer<typeof Group>;

/** issuer and subject exact, or their patterns instead (serve leaves the exact field empty then). */
export const ClaimMatch = z.looseObject({
  issuer: z.string().default(''),
  subject: z.string().default(''),
  issuerPattern: z.string().optional(),
  subjectPattern: z.string().optional(),
  audience: z.string().optional(),
  audiencePattern: z.string().optional(),
  claims: z.record(z.string(), z.string()).optional(),
  claimPatterns: z.record(z.string(), z.string()).optional(),
});
export type ClaimMatch = z.infer<typeof ClaimMatch>;

export const Identity = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  claimMatch: ClaimMatch,
  email: z.string().optional(),
  // The published relationship's other forms (claimMatch is then empty: it matches nothing).
  staticKeys: z.record(z.string(), z.unknown()).optional(),
  awsIdentity: z.record(z.string(), z.unknown()).optional(),
  servicePrincipal: z.string().optional(),
  lastSeenTime: Timestamp.optional(),
  createTime: Timestamp,
  updateTime: Timestamp,
});
export type Identity = z.infer<typeof Identity>;

export const Role = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  capabilities: z.array(z.string()).optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
});
export type Role = z.infer<typeof Role>;

/** A role binding, with its references fully expanded (create, get and list alike). */
export const RoleBinding = z.looseObject({
  uid: Uid,
  identity: z.looseObject({ uid: Uid, name: z.string(), description: z.string().default(''), subject: z.string(), issuer: z.string() }),
  group: z.looseObject({ uid: Uid, name: z.string(), description: z.string().default('') }),
  role: z.looseObject({ uid: Uid, name: z.string(), description: z.string().default('') }),
  createTime: Timestamp,
});
export type RoleBinding = z.infer<typeof RoleBinding>;

export const Repo = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  createTime: Timestamp,
  updateTime: Timestamp.optional(),
});
export type Repo = z.infer<typeof Repo>;

export const Tag = z.looseObject({
  uid: Uid.optional(),
  name: z.string(),
  digest: z.string(),
  deprecated: z.boolean().default(false),
  createTime: Timestamp.optional(),
  updateTime: Timestamp,
});
export type Tag = z.infer<typeof Tag>;

export const Advisory = z.looseObject({
  uid: Uid,
  advisoryId: z.string(),
  artifactName: z.string(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp,
});
export type Advisory = z.infer<typeof Advisory>;

/** A webhook subscription of the events domain: change events of its group and below go to `sink`. */
export const Subscription = z.looseObject({
  uid: Uid,
  sink: z.string(),
  createTime: Timestamp,
  updateTime: Timestamp,
});
export type Subscription = z.infer<typeof Subscription>;

/** The OIDC settings of an identity provider, as responses show them (clientSecret is write-only). */
export const CORRELATION_RULES = ['SUB_EQUALS_EXTERNAL_ID', 'OID_EQUALS_EXTERNAL_ID'] as const;

export const IdentityProvider = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  defaultRole: z.string(),
  oidc: z.looseObject({
    issuer: z.string(),
    clientId: z.string(),
    additionalScopes: z.array(z.string()).default([]),
    groupsClaim: z.string().default(''),
    correlationRule: z.enum(CORRELATION_RULES),
    pkceEnabled: z.boolean().default(false),
  }),
  createTime: Timestamp,
  updateTime: Timestamp,
});
export type IdentityProvider = z.infer<typeof IdentityProvider>;

/** An invite to a group; `code` is in the create response only. */
export const GroupInvite = z.looseObject({
  uid: Uid,
  roleUid: z.string(),
  role: z.looseObject({ uid: z.string(), name: z.string(), description: z.string().default('') }),
  email: z.string().default(''),
  expirationTime: Timestamp,
  singleUse: z.boolean().default(false),
  code: z.string().optional(),
  keyId: z.string(),
  createTime: Timestamp,
});
export type GroupInvite = z.infer<typeof GroupInvite>;

/** Invite lifetimes: a protobuf Duration in JSON (`"604800s"`), from a minute to 30 days. */
export const INVITE_TTL_MIN_S = 60;
export const INVITE_TTL_MAX_S = 30 * 24 * 3600;
export const INVITE_TTL_RULE = `must be a duration in seconds such as "604800s", from ${INVITE_TTL_MIN_S}s (a minute) to ${INVITE_TTL_MAX_S}s (30 days)`;

/** `"604800s"` → 604800; undefined when it is not a duration in the bounds. */
export function inviteTtlSeconds(ttl: string): number | undefined {
  const m = /^(\d{1,9})(\.\d{1,9})?s$/.exec(ttl);
  const seconds = m ? Number(m[1]) + Number(m[2] ?? 0) : NaN;
  return seconds >= INVITE_TTL_MIN_S && seconds <= INVITE_TTL_MAX_S ? seconds : undefined;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const emailProblem: FieldRule = (s) => (s.length > NAME_MAX || !EMAIL_RE.test(s) ? 'must be an email address' : undefined);

// ---- account associations: each provider's block, as stored, sent and checked ----

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const nonEmptyMap = (what: string) =>
  z.record(z.string().min(1, 'keys must not be empty'), z.string().min(1, `${what} must not be empty`));

export const AmazonBlock = z.strictObject({ account: z.string().regex(/^\d{12}$/, 'must be a 12-digit AWS account id') });
export const GoogleBlock = z.strictObject({
  projectId: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'must be a Google Cloud project id: 6 to 30 lower-case letters, digits or hyphens, starting with a letter'),
  projectNumber: z.string().regex(/^\d{1,20}$/, 'must be a project number (decimal digits)'),
});
export const AzureBlock = z.strictObject({
  tenantId: z.string().regex(UUID_RE, 'must be a UUID'),
  clientIds: nonEmptyMap('client ids').optional(),
});
/** int64 ids travel as decimal strings (proto3 JSON); a JSON number is accepted too. */
const Int64 = z.union([z.string().regex(/^\d{1,19}$/, 'must be a decimal integer'), z.number().int().nonnegative()]).transform(String);
export const GithubBlock = z.strictObject({
  appInstallations: z.record(
    z.string().regex(/^\d{1,19}$/, 'keys must be numeric owner ids'),
    z.strictObject({ installations: z.array(z.strictObject({ installationId: Int64, name: z.string() })) }),
  ),
});
export const ChainguardBlock = z.strictObject({ serviceBindings: nonEmptyMap('service bindings') });


export const AccountAssociation = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  amazon: z.looseObject({ account: z.string() }).optional(),
  google: z.looseObject({ projectId: z.string(), projectNumber: z.string() }).optional(),
  azure: z.looseObject({ tenantId: z.string(), clientIds: z.record(z.string(), z.string()).default({}) }).optional(),
  github: z.looseObject({ appInstallations: z.record(z.string(), z.unknown()) }).optional(),
  chainguard: z.looseObject({ serviceBindings: z.record(z.string(), z.string()) }).optional(),
  createTime: Timestamp,
  updateTime: Timestamp,
});
export type AccountAssociation = z.infer<typeof AccountAssociation>;

export const CHECK_PROVIDERS = ['GOOGLE', 'AMAZON', 'AZURE'] as const;
export const CheckAccountAssociationBody = z.strictObject({ providerType: z.enum(CHECK_PROVIDERS, `must be one of ${CHECK_PROVIDERS.join(', ')}`) });
export const AccountAssociationCheck = z.looseObject({ status: z.enum(['READY', 'NOT_READY']), reason: z.string(), message: z.string() });

// ---- Ecosystems (/libraries/v2/) and Integrations (/advisory/v2/), read-only ----

export const ECOSYSTEMS = ['JAVA', 'PYTHON'] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

/** An ecosystem in any case (`java`) → the API's value; undefined when it is none. */
export function ecosystemOf(value: string): Ecosystem | undefined {
  const upper = value.trim().toUpperCase();
  return (ECOSYSTEMS as readonly string[]).includes(upper) ? (upper as Ecosystem) : undefined;
}
export const ecosystemRule = (value: string) => `${JSON.stringify(value)} is not an ecosystem (${ECOSYSTEMS.join(', ')})`;

export const Artifact = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  ecosystem: z.enum(ECOSYSTEMS),
  latestVersion: z.string().default(''),
  versionCount: z.number().int().nonnegative(),
  createTime: Timestamp,
  updateTime: Timestamp,
});
export type Artifact = z.infer<typeof Artifact>;

export const ArtifactVersion = z.looseObject({
  uid: Uid,
  name: z.string(),
  version: z.string(),
  description: z.string().default(''),
  sizeBytes: z.string().regex(/^\d+$/, 'must be a decimal integer string'),
  createTime: Timestamp,
  updateTime: Timestamp,
});
export type ArtifactVersion = z.infer<typeof ArtifactVersion>;

export const ArtifactCounts = z.looseObject({
  counts: z.array(z.looseObject({ ecosystem: z.enum(ECOSYSTEMS), totalCount: z.string() })),
});

export const FALSE_POSITIVE_TYPES = [
  'VULNERABILITY_RECORD_ANALYSIS_CONTESTED', 'COMPONENT_VULNERABILITY_MISMATCH', 'VULNERABLE_CODE_VERSION_NOT_USED',
  'VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE', 'VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', 'VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY',
  'INLINE_MITIGATIONS_EXIST',
] as const;
const Note = z.strictObject({ note: z.string().optional() });

/** An advisory event: a timestamp and exactly one of the kinds. */
export const AdvisoryEvent = z.strictObject({
  timestamp: Timestamp,
  detection: z.union([
    z.strictObject({ manual: z.strictObject({}) }),
    z.strictObject({ nvdapi: z.strictObject({ cpeSearched: z.string(), cpeFound: z.string() }) }),
    z.strictObject({ scanv1: z.looseObject({ scanner: z.string(), componentName: z.string(), componentVersion: z.string(), componentType: z.string() }) }),
  ]).optional(),
  truePositiveDetermination: Note.optional(),
  falsePositiveDetermination: z.strictObject({ type: z.enum(FALSE_POSITIVE_TYPES), note: z.string().optional() }).optional(),
  fixed: z.strictObject({ fixedVersion: z.string() }).optional(),
  analysisNotPlanned: Note.optional(),
  fixNotPlanned: Note.optional(),
  pendingUpstreamFix: Note.optional(),
}).refine((e) => Object.keys(e).filter((k) => k !== 'timestamp').length === 1, 'must have a timestamp and exactly one kind of event');

export const AdvisoryDocument = z.strictObject({
  id: z.string().min(1),
  advisories: z.array(z.strictObject({
    id: z.string().min(1),
    aliases: z.array(z.string()).default([]),
    packageNamespace: z.string().default(''),
    events: z.array(AdvisoryEvent).default([]),
  })),
});
export type AdvisoryDocument = z.output<typeof AdvisoryDocument>;

export const REFERENCE_TYPES = ['ADVISORY', 'ARTICLE', 'DETECTION', 'DISCUSSION', 'REPORT', 'FIX', 'INTRODUCED', 'PACKAGE', 'EVIDENCE', 'WEB'] as const;
export const VulnerabilityMetadata = z.strictObject({
  id: z.string().min(1),
  summary: z.string().default(''),
  details: z.string().default(''),
  references: z.array(z.strictObject({ type: z.enum(REFERENCE_TYPES), url: z.string() })).default([]),
  severities: z.array(z.strictObject({ type: z.enum(['CVSS_V2', 'CVSS_V3', 'CVSS_V4']), score: z.string() })).default([]),
});
export type VulnerabilityMetadata = z.output<typeof VulnerabilityMetadata>;

/** Advisory ids and artifact names in seeds: no whitespace, no commas (the list filters split on them). */
export const FILTER_VALUE_RE = /^[^\s,]{1,255}$/;
export const FILTER_VALUE_RULE = 'must be 1 to 255 characters with no whitespace or commas';

/** The wire schema of each resource, by its registry `kind` (which names the message). */
const WIRE_SCHEMAS = { Group, Identity, Role, RoleBinding, IdentityProvider, GroupInvite, AccountAssociation, Repo, Tag, Advisory, Artifact, Subscription } as const;
/** The messages that are resources: a registry declaration's `kind`. */
export type WireName = keyof typeof WIRE_SCHEMAS;

export function wireSchema<W extends keyof typeof WIRE_SCHEMAS>(d: { kind: W }): (typeof WIRE_SCHEMAS)[W] {
  return WIRE_SCHEMAS[d.kind];
}

/** The list envelope: `{<plural>: [...], nextPageToken, totalCount: "123", skipped}`. */
export function listEnvelope<K extends string, T extends z.ZodType>(plural: K, item: T) {
  return z.looseObject({
    [plural]: z.array(item).default([]),
    nextPageToken: z.string().optional(),
    totalCount: z.string().regex(/^\d+$/, 'must be a decimal integer string').optional(),
    skipped: z.number().int().nonnegative().optional(),
  } as { [P in K]: z.ZodDefault<z.ZodArray<T>> } & {
    nextPageToken: z.ZodOptional<z.ZodString>;
    totalCount: z.ZodOptional<z.ZodString>;
    skipped: z.ZodOptional<z.ZodNumber>;
  });
}

// ---- field rules ----
// Each string field a request may carry has one rule, stated here once: the create bodies
// below, PATCH bodies (src/server/update.ts), seed files and the CLI's flag checks all use
// it. A rule reports the first problem of a value, so a field gets one violation. Lengths
// are in UTF-16 code units (JavaScript's string length).

export const NAME_MAX = 255;
export const DESCRIPTION_MAX = 4096;
/** claimMatch.issuer: a URL; browsers and proxies stop being reliable beyond 2048. */
export const ISSUER_MAX = 2048;
/** claimMatch.subject: CI subjects embed owner, repository, ref and environment, so well above OIDC's 255. */
export const SUBJECT_MAX = 1024;
/** A uid named in a body (parent, identityUid, roleUid): 40 hex plus 17 per level, so 200+ levels deep. */
export const UID_MAX = 4096;

/** One string field's rule: the first problem with a value, or undefined when it is fine. */
export type FieldRule = (value: string) => string | undefined;

const atMost = (max: number) => `must be at most ${max} characters`;
 
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

export const ISSUER_RULE = 'must be an https URL (http only on a loopback host: 127.0.0.0/8, ::1, localhost)';
/** A webhook sink: the vendor requires https; serve also takes http to a loopback host (a local receiver). */
export const SINK_RULE = 'must be an https URL (serve also accepts http on a loopback host: 127.0.0.0/8, ::1, localhost)';
/** Sinks, like issuers, stay below what browsers and proxies handle reliably. */
export const SINK_MAX = 2048;
export const REPO_NAME_RULE = `must match ${REPO_NAME_PATTERN} and be at most ${NAME_MAX} characters`;

export const groupNameProblem: FieldRule = (s) => (!GROUP_NAME_RE.test(s) ? GROUP_NAME_RULE : s.length > NAME_MAX ? atMost(NAME_MAX) : undefined);

/** Identity and role names: free text on one line. */
export const plainNameProblem: FieldRule = (s) =>
  s === '' ? 'must not be empty' : s.length > NAME_MAX ? atMost(NAME_MAX) : CONTROL_RE.test(s) ? 'must not contain control characters' : undefined;

export const repoNameProblem: FieldRule = (s) => (s.length > NAME_MAX || !REPO_NAME_RE.test(s) ? REPO_NAME_RULE : undefined);

export const descriptionProblem: FieldRule = (s) => (s.length > DESCRIPTION_MAX ? atMost(DESCRIPTION_MAX) : undefined);

export const subjectProblem: FieldRule = (s) => (s === '' ? 'must not be empty' : s.length > SUBJECT_MAX ? atMost(SUBJECT_MAX) : undefined);

/** A uid that a body refers to; whether it exists is the server's question. */
export const uidRefProblem: FieldRule = (s) => (s === '' ? 'is required' : s.length > UID_MAX ? atMost(UID_MAX) : undefined);

/**
 * The token issuer: https, or plain http only where nothing travels over a network (a
 * `javascript:` or `file:` URL, or http to another host, would name an issuer whose keys
 * anyone on the path could replace).
 */
export const issuerProblem: FieldRule = (s) => {
  if (s === '') return 'is required';
  if (s.length > ISSUER_MAX) return atMost(ISSUER_MAX);
  const url = URL.parse(s);
  if (!url) return ISSUER_RULE;
  if (url.protocol === 'https:' && url.hostname !== '') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return ISSUER_RULE;
};

/** A subscription's sink: an https URL, or http to a loopback host (serve's local extension); no credentials in it. */
export const sinkProblem: FieldRule = (s) => {
  if (s === '') return 'is required';
  if (s.length > SINK_MAX) return atMost(SINK_MAX);
  const url = URL.parse(s);
  if (!url || url.username || url.password) return SINK_RULE;
  if (url.protocol === 'https:' && url.hostname !== '') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return SINK_RULE;
};

/** `hostname` as the URL parser leaves it: lower-case, IPv4 in dotted decimal, IPv6 in brackets. */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The rules of the string fields a PATCH may change, by resource (dotted paths for nested fields). */
export const UPDATE_RULES = {
  group: { name: groupNameProblem, description: descriptionProblem },
  identity: { name: plainNameProblem, description: descriptionProblem, email: (s) => (s === '' ? undefined : emailProblem(s)), 'claimMatch.issuer': issuerProblem, 'claimMatch.subject': subjectProblem },
  role: { name: plainNameProblem, description: descriptionProblem },
  repo: { name: repoNameProblem, description: descriptionProblem },
  identityProvider: {
    name: plainNameProblem, description: descriptionProblem, defaultRole: uidRefProblem, 'oidc.issuer': issuerProblem,
    'oidc.clientId': (s) => (s === '' ? 'is required' : s.length > NAME_MAX ? `must be at most ${NAME_MAX} characters` : undefined),
    'oidc.clientSecret': (s) => (s.length > DESCRIPTION_MAX ? `must be at most ${DESCRIPTION_MAX} characters` : undefined),
    'oidc.groupsClaim': (s) => (s.length > NAME_MAX ? `must be at most ${NAME_MAX} characters` : undefined),
  },
} as const satisfies Record<string, Record<string, FieldRule>>;

/** A zod string held to a field rule: what create bodies and seed files are built from. */
export function ruled(rule: FieldRule) {
  return z.string().check((ctx) => {
    const problem = rule(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });
}

// ---- request bodies ----

const Description = ruled(descriptionProblem);
const UidRef = ruled(uidRefProblem);

/** The published OrgKind's values (proto3 JSON names), but UNSPECIFIED: an organization's kind. */
export const ORG_KINDS = ['ORG_KIND_STARTER', 'ORG_KIND_CUSTOMER', 'ORG_KIND_DEV', 'ORG_KIND_INFRA', 'ORG_KIND_AWS_MARKETPLACE'] as const;

export const CreateGroupBody = z.strictObject({
  parent: UidRef,
  group: z.strictObject({
    name: ruled(groupNameProblem),
    description: Description.optional(),
    // Taken to say why it is refused: a group made here is a subgroup, which inherits its organization's.
    kind: z.string().optional(),
  }),
});
export type CreateGroupBody = z.infer<typeof CreateGroupBody>;

/**
 * A claim pattern: anchored, in RE2's syntax (the vendor's engine), so no lookaround and no
 * backreferences; nested quantifiers are refused too, as serve's engine backtracks and RE2 does not.
 */
export const patternProblem: FieldRule = (s) => {
  if (s === '') return 'must not be empty';
  if (s.length > SUBJECT_MAX) return atMost(SUBJECT_MAX);
  if (/\(\?<?[=!]/.test(s)) return 'must not use lookahead or lookbehind (RE2 has none)';
  if (/\\[1-9]|\\k</.test(s)) return 'must not use backreferences (RE2 has none)';
  if (/\([^()]*[*+}][^()]*\)[*+{]/.test(s)) return 'must not nest quantifiers, as (a+)+';
  try {
    new RegExp(`^(?:${s})$`);
  } catch (err) {
    return `is not a valid regular expression (${(err as Error).message})`;
  }
  return undefined;
};

const Pattern = ruled(patternProblem);
const ClaimValues = z.record(ruled(plainNameProblem), ruled(subjectProblem));

/** Exactly one of issuer and issuerPattern, and of subject and subjectPattern; at most one of audience and audiencePattern. */
export const CreateClaimMatch = z.strictObject({
  issuer: ruled(issuerProblem).optional(),
  issuerPattern: Pattern.optional(),
  subject: ruled(subjectProblem).optional(),
  subjectPattern: Pattern.optional(),
  audience: ruled(subjectProblem).optional(),
  audiencePattern: Pattern.optional(),
  claims: ClaimValues.optional(),
  claimPatterns: z.record(ruled(plainNameProblem), Pattern).optional(),
}).check((ctx) => {
  const m = ctx.value;
  const one = (exact: 'issuer' | 'subject' | 'audience', required: boolean) => {
    const both = m[exact] !== undefined && m[`${exact}Pattern`] !== undefined;
    if (both || (required && m[exact] === undefined && m[`${exact}Pattern`] === undefined)) {
      ctx.issues.push({ code: 'custom', path: [exact], input: m, message: `${required ? 'exactly' : 'at most'} one of ${exact} and ${exact}Pattern must be set` });
    }
  };
  one('issuer', true);
  one('subject', true);
  one('audience', false);
});

const CLAIM_MATCH_FIELDS = ['issuer', 'issuerPattern', 'subject', 'subjectPattern', 'audience', 'audiencePattern', 'claims', 'claimPatterns'] as const;

/**
 * The fields of a claimMatch that are set, as a create takes them: the wire form leaves an
 * exact field empty beside its pattern, where the published messages (oneofs), seed files and
 * the CLI's manifests name only what is set.
 */
export function setClaimMatchFields(claim: Readonly<Record<string, unknown>>): z.infer<typeof CreateClaimMatch> {
  const set = (v: unknown) => v !== undefined && v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v).length === 0);
  return Object.fromEntries(CLAIM_MATCH_FIELDS.filter((f) => set(claim[f])).map((f) => [f, claim[f]]));
}

/** The published ServicePrincipal's values but UNSPECIFIED (proto3 JSON names). */
export const SERVICE_PRINCIPALS = [
  'SERVICE_PRINCIPAL_COSIGNED', 'SERVICE_PRINCIPAL_INGESTER', 'SERVICE_PRINCIPAL_CATALOG_SYNCER', 'SERVICE_PRINCIPAL_APKO_BUILDER',
  'SERVICE_PRINCIPAL_ENTITLEMENT_SYNCER', 'SERVICE_PRINCIPAL_TENANT_SCANNER', 'SERVICE_PRINCIPAL_SEDIMENTOLOGY', 'SERVICE_PRINCIPAL_SKILLUP',
] as const;

/** The members of a JWK that are secret (RFC 7518): a private key's, or a symmetric key itself. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * A JWKS document as the published StaticKeys.issuer_keys carries it: JSON with a `keys` array
 * of public keys. A private member is refused: the field is no secret (reads and exports show it).
 */
const jwksProblem: FieldRule = (s) => {
  let doc: { keys?: unknown };
  try {
    doc = JSON.parse(s) as { keys?: unknown };
  } catch {
    return 'must be a JWKS document ({"keys": […]})';
  }
  if (!Array.isArray(doc.keys)) return 'must be a JWKS document ({"keys": […]})';
  for (const [i, key] of doc.keys.entries()) {
    const secret = key && typeof key === 'object' ? PRIVATE_JWK_MEMBERS.find((m) => m in key) : undefined;
    if (secret) return `must hold public keys only: keys[${i}] has the private member "${secret}" (send the public key alone)`;
  }
  return undefined;
};

export const StaticKeys = z.strictObject({
  issuer: ruled(issuerProblem),
  subject: ruled(subjectProblem),
  issuerKeys: ruled(jwksProblem),
  expirationTime: Timestamp.optional(),
  audiences: z.array(ruled(subjectProblem)).max(1, 'must hold at most one audience (as the published field says)').optional(),
});

/** At most one of arn and arnPattern, and of userId and userIdPattern (the published oneofs). */
export const AwsIdentity = z.strictObject({
  awsAccount: z.string().regex(/^\d{12}$/, 'must be 12 digits'),
  arn: ruled(subjectProblem).optional(),
  arnPattern: Pattern.optional(),
  userId: ruled(subjectProblem).optional(),
  userIdPattern: Pattern.optional(),
}).check((ctx) => {
  for (const f of ['arn', 'userId'] as const) {
    if (ctx.value[f] !== undefined && ctx.value[`${f}Pattern`] !== undefined) ctx.issues.push({ code: 'custom', path: [f], input: ctx.value, message: `at most one of ${f} and ${f}Pattern may be set` });
  }
});

export type StaticKeys = z.output<typeof StaticKeys>;
export type AwsIdentity = z.output<typeof AwsIdentity>;

const RELATIONSHIPS = ['claimMatch', 'staticKeys', 'awsIdentity', 'servicePrincipal'] as const;

/** The published relationship oneof: exactly one of claimMatch, staticKeys, awsIdentity and servicePrincipal. */
export const CreateIdentityBody = z.strictObject({
  parent: UidRef,
  identity: z.strictObject({
    name: ruled(plainNameProblem),
    description: Description.optional(),
    email: ruled(emailProblem).optional(),
    claimMatch: CreateClaimMatch.optional(),
    staticKeys: StaticKeys.optional(),
    awsIdentity: AwsIdentity.optional(),
    servicePrincipal: z.enum(SERVICE_PRINCIPALS, `must be one of ${SERVICE_PRINCIPALS.join(', ')}`).optional(),
  }).check((ctx) => {
    const set = RELATIONSHIPS.filter((r) => ctx.value[r] !== undefined);
    if (set.length !== 1) ctx.issues.push({ code: 'custom', path: ['claimMatch'], input: ctx.value, message: `exactly one of ${RELATIONSHIPS.join(', ')} must be set` });
  }),
});
export type CreateIdentityBody = z.infer<typeof CreateIdentityBody>;

export const CreateRoleBindingBody = z.strictObject({
  parent: UidRef,
  roleBinding: z.strictObject({
    identityUid: UidRef,
    roleUid: UidRef,
  }),
});
export type CreateRoleBindingBody = z.infer<typeof CreateRoleBindingBody>;

export const CreateRoleBody = z.strictObject({
  parent: UidRef,
  role: z.strictObject({
    name: ruled(plainNameProblem),
    description: Description.optional(),
    capabilities: z.array(z.string()).default([]),
  }),
});
export type CreateRoleBody = z.infer<typeof CreateRoleBody>;

export const CreateIdentityProviderBody = z.strictObject({
  parent: UidRef,
  identityProvider: z.strictObject({
    name: ruled(UPDATE_RULES.identityProvider.name),
    description: Description.optional(),
    defaultRole: UidRef,
    oidc: z.strictObject({
      issuer: ruled(issuerProblem),
      clientId: ruled(UPDATE_RULES.identityProvider['oidc.clientId']),
      clientSecret: ruled(UPDATE_RULES.identityProvider['oidc.clientSecret']).optional(),
      additionalScopes: z.array(z.string().min(1, 'must not be empty')).optional(),
      groupsClaim: ruled(UPDATE_RULES.identityProvider['oidc.groupsClaim']).optional(),
      correlationRule: z.enum(CORRELATION_RULES, `must be one of ${CORRELATION_RULES.join(', ')}`).optional(),
      pkceEnabled: z.boolean().optional(),
    }),
  }),
});
export type CreateIdentityProviderBody = z.infer<typeof CreateIdentityProviderBody>;

export const CreateGroupInviteBody = z.strictObject({
  parent: UidRef,
  groupInvite: z.strictObject({
    roleUid: UidRef,
    email: ruled(emailProblem).optional(),
    ttl: z.string().refine((s) => inviteTtlSeconds(s) !== undefined, INVITE_TTL_RULE),
    singleUse: z.boolean().optional(),
  }),
});
export type CreateGroupInviteBody = z.infer<typeof CreateGroupInviteBody>;

export const RedeemInviteBody = z.strictObject({ code: z.string().min(1, 'is required').max(UID_MAX) });

/** The fields of an account association a request may set (create body, and an update's result). */
export const AccountAssociationFields = z.strictObject({
  name: ruled(plainNameProblem),
  description: ruled(descriptionProblem).optional(),
  amazon: AmazonBlock.optional(),
  google: GoogleBlock.optional(),
  azure: AzureBlock.optional(),
  github: GithubBlock.optional(),
  chainguard: ChainguardBlock.optional(),
});
export type AccountAssociationFields = z.output<typeof AccountAssociationFields>;

export const CreateAccountAssociationBody = z.strictObject({ parent: UidRef, accountAssociation: AccountAssociationFields });

export const CreateSubscriptionBody = z.strictObject({
  parent: UidRef,
  subscription: z.strictObject({ sink: ruled(sinkProblem) }),
});
export type CreateSubscriptionBody = z.infer<typeof CreateSubscriptionBody>;

const Labels = z.array(z.string()).max(100);

/**
 * A repo as the vendor's CreateRepo carries it (proto3 JSON of its Repo; `sync_config` is the
 * published JSON name); the domain holds its catalogue fields to their rules.
 */
export const CreateRepoBody = z.strictObject({
  parent: UidRef,
  repo: z.strictObject({
    name: ruled(repoNameProblem),
    description: Description.optional(),
    catalogTier: z.string().optional(),
    bundles: Labels.optional(),
    aliases: Labels.optional(),
    activeTags: Labels.optional(),
    sync_config: z.looseObject({ source: z.string() }).optional(),
    customOverlay: z.looseObject({}).optional(),
  }),
});

/** A tag as the vendor's CreateTag carries it: name and digest required. */
export const CreateTagBody = z.strictObject({
  parent: UidRef,
  tag: z.strictObject({ name: z.string(), digest: z.string(), deprecated: z.boolean().optional(), bundles: Labels.optional() }),
});

/** The create body of each resource the API creates, by its registry kind: `{parent, <wrapper>: {...}}`. */
export const CREATE_BODIES = {
  Group: CreateGroupBody,
  Identity: CreateIdentityBody,
  Role: CreateRoleBody,
  RoleBinding: CreateRoleBindingBody,
  IdentityProvider: CreateIdentityProviderBody,
  GroupInvite: CreateGroupInviteBody,
  AccountAssociation: CreateAccountAssociationBody,
  Subscription: CreateSubscriptionBody,
  Repo: CreateRepoBody,
  Tag: CreateTagBody,
} as const satisfies Partial<Record<WireName, z.ZodObject>>;

/** Wrapper keys of create bodies: violations inside them are named by the resource field alone. */
export const CREATE_WRAPPERS = new Set(['group', 'identity', 'roleBinding', 'role', 'identityProvider', 'groupInvite', 'accountAssociation', 'subscription', 'repo', 'tag']);

/**
 * Turns zod issues into AIP-193 field violations with plain-English descriptions.
 * `group.name` is reported as `name`, as the spec names the field.
 */
export function zodViolations(error: z.ZodError): { field: string; description: string }[] {
  const out: { field: string; description: string }[] = [];
  for (const issue of error.issues) {
    let path = issue.path.map(String);
    const insideWrapper = path.length > 1 || issue.code === 'unrecognized_keys';
    if (insideWrapper && CREATE_WRAPPERS.has(path[0]!)) path = path.slice(1);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ field: [...path, key].join('.'), description: 'is not a known field' });
      continue;
    }
    out.push({ field: path.join('.') || 'body', description: describeIssue(issue) });
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    if (issue.message.endsWith('received undefined')) return 'is required';
    const what = issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'an array' : `a ${issue.expected}`;
    return `must be ${what}`;
  }
  return issue.message;
}
