// The wire contract: every resource, create body and list envelope of the API, once.
// The server validates requests and shapes responses with these; the client validates
// responses with them. Response schemas are loose (unknown fields pass through, so a
// newer server does not break an older client); request schemas are strict (a typo in
// a field name is an error, not a silent no-op).
import { z } from 'zod';

/** The group-name rule of the spec, quoted verbatim in errors. */
export const GROUP_NAME_PATTERN = '^[a-z0-9 ._-]{1,}$';
export const GROUP_NAME_RE = /^[a-z0-9 ._-]{1,}$/;
export const GROUP_NAME_RULE = `must match ${GROUP_NAME_PATTERN}`;

/** Tag digests: `sha256:` + 64 lower-case hex. */
export const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

/** RFC 3339 UTC with milliseconds, as the server writes it: 2026-11-22T05:52:35.123Z. */
export const Timestamp = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/, 'must be an RFC 3339 timestamp');

const Uid = z.string().min(1);

export const Group = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  resourceLimits: z.record(z.string(), z.unknown()).default({}),
  verified: z.boolean().default(false),
  createTime: Timestamp,
  updateTime: Timestamp,
});
export type Group = z.infer<typeof Group>;

export const ClaimMatch = z.looseObject({ issuer: z.string(), subject: z.string() });
export type ClaimMatch = z.infer<typeof ClaimMatch>;

export const Identity = z.looseObject({
  uid: Uid,
  name: z.string(),
  description: z.string().default(''),
  claimMatch: ClaimMatch,
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

// ---- request bodies ----

export const DESCRIPTION_MAX = 4096;
const Description = z.string().max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`);

export const CreateGroupBody = z.strictObject({
  parent: z.string().min(1, 'is required'),
  group: z.strictObject({
    name: z.string(),
    description: Description.optional(),
  }),
});
export type CreateGroupBody = z.infer<typeof CreateGroupBody>;

export const CreateIdentityBody = z.strictObject({
  parent: z.string().min(1, 'is required'),
  identity: z.strictObject({
    name: z.string().min(1, 'is required'),
    description: Description.optional(),
    claimMatch: z.strictObject({
      issuer: z.string().min(1, 'is required'),
      subject: z.string().min(1, 'is required'),
    }),
  }),
});
export type CreateIdentityBody = z.infer<typeof CreateIdentityBody>;

export const CreateRoleBindingBody = z.strictObject({
  parent: z.string().min(1, 'is required'),
  roleBinding: z.strictObject({
    identityUid: z.string().min(1, 'is required'),
    roleUid: z.string().min(1, 'is required'),
  }),
});
export type CreateRoleBindingBody = z.infer<typeof CreateRoleBindingBody>;

export const CreateRoleBody = z.strictObject({
  parent: z.string().min(1, 'is required'),
  role: z.strictObject({
    name: z.string().min(1, 'is required'),
    description: Description.optional(),
    capabilities: z.array(z.string()).default([]),
  }),
});
export type CreateRoleBody = z.infer<typeof CreateRoleBody>;

/** Wrapper keys of create bodies: violations inside them are named by the resource field alone. */
export const CREATE_WRAPPERS = new Set(['group', 'identity', 'roleBinding', 'role']);

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
