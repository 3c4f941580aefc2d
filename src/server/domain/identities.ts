// Identities: each names one issuer and subject pair (claimMatch), unique across the data
// dir, so that a token maps to one identity. Deleting one deletes its role bindings.
import { alreadyExists, ApiError, Code, invalidArgument, invalidField } from '../../api/errors.js';
import { capabilities, capability, groups as G, identities as I, roleBindings as RB } from '../../api/registry/index.js';
import { CreateClaimMatch, UPDATE_RULES, zodViolations, type AwsIdentity, type SERVICE_PRINCIPALS, type StaticKeys } from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import { isExact, type ClaimMatch } from '../auth/claim-match.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, insertChild, mustGet, now, patchRecord, resolve, type Deferred, type DomainContext } from './context.js';
import { ensureCouldGrantBindingsOf } from './grants.js';
import { ruledChanges, type Changes } from './patch.js';
import { readOperations } from './reads.js';
import { records } from './kinds/index.js';
import { claimKey, timestamp } from './records.js';

export interface NewIdentity {
  parent: string;
  name: string;
  description?: string | undefined;
  email?: string | undefined;
  /** Absent for the published relationship's other forms: then it matches no token. */
  claimMatch?: ClaimMatch | undefined;
  /** The other forms, stored and returned; serve matches no token to them (docs/grpc.md). */
  staticKeys?: StaticKeys | undefined;
  awsIdentity?: AwsIdentity | undefined;
  servicePrincipal?: (typeof SERVICE_PRINCIPALS)[number] | undefined;
}

const STATIC_KEYS_MAX_MS = 365 * 86_400_000;

export function identityOperations(ctx: DomainContext) {
  return {
    ...readOperations(ctx, I),

    async create(principal: Principal, input: NewIdentity): Promise<Record_<'identity'>> {
      authorize(ctx, principal, capabilities(I, 'create'), G, input.parent, 'parent');
      return commit(ctx, principal, 'identities.create', () => insertIdentity(ctx, principal, input));
    },

    /**
     * The uid of the identity of a literal issuer and subject (unique in serve): the published
     * LookupIdentity, whose rule needs no capability ("any authenticated caller may invoke it").
     * An unknown pair is NOT_FOUND: serve makes no uid ahead of a registration.
     */
    async lookup(principal: Principal, issuer: string, subject: string): Promise<string> {
      ctx.authz.requireAnywhere(principal, capabilities(I, 'LookupIdentity'));
      if (!issuer) throw invalidField('issuer', 'is required');
      if (!subject) throw invalidField('subject', 'is required');
      const rec = ctx.store.findByAltKey(I.storeKind, claimKey(issuer, subject))[0];
      if (!rec) throw new ApiError(Code.NOT_FOUND, `No identity matches issuer ${issuer} and subject ${subject}`, { reason: 'NOT_FOUND' });
      return rec.uid;
    },

    async update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_<'identity'>> {
      authorize(ctx, principal, capabilities(I, 'update'), I, uid);
      const patch = await resolve(changes);
      // claimMatch's fields are held to the create rules as a whole (changedClaimMatch).
      const { name, description, email } = ruledChanges(patch, { name: UPDATE_RULES.identity.name, description: UPDATE_RULES.identity.description, email: UPDATE_RULES.identity.email });
      return commit(ctx, principal, 'identities.update', () => patchRecord(ctx, I, uid, patch, (rec) => {
        const claim = rec.data.claimMatch;
        const next = changedClaimMatch(claim, patch);
        if (next && JSON.stringify(next) !== JSON.stringify(claim)) {
          // No escalation through identities: the new tokens get every binding it holds.
          ensureCouldGrantBindingsOf(ctx, principal, rec, `change the claimMatch of identity ${rec.uid}`);
          if (isExact(next)) ensureClaimUnique(ctx, principal, next.issuer!, next.subject!, rec.uid);
          rec.data.claimMatch = next;
          // A pattern identity is not found by index (the exchange tries each: claim-match.ts).
          rec.altKey = isExact(next) ? claimKey(next.issuer!, next.subject!) : null;
        }
        if (name !== undefined) rec.name = name;
        if (description !== undefined) rec.data.description = description;
        if (email === '') delete rec.data.email;
        else if (email !== undefined) rec.data.email = email;
      }));
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      authorize(ctx, principal, capabilities(I, 'delete'), I, uid);
      await commit(ctx, principal, 'identities.delete', () => {
        const rec = mustGet(ctx, I, uid);
        ensureCouldGrantBindingsOf(ctx, principal, rec, `delete identity ${rec.uid}`);
        // A binding of a deleted identity grants nothing; it goes with the identity.
        for (const binding of ctx.store.findByAltKeyFirstPart(RB.storeKind, rec.uid)) ctx.store.remove(binding.uid);
        ctx.store.remove(rec.uid);
      });
    },

    /**
     * The identity was seen (a request with its token): lastSeenTime, written by serve, not an
     * update by a user (updateTime stays; no actor, so no change event). Nothing when the
     * identity is gone meanwhile.
     */
    touch(uid: string, at: number): Promise<void> {
      return ctx.store.write(() => {
        const current = ctx.store.get(uid, I.storeKind);
        if (!current) return;
        current.data.lastSeenTime = timestamp(at);
        ctx.store.update(current);
      }, { actor: null, time: timestamp(at), operation: 'identities.touch' });
    },
  };
}

/** In a write: a new identity in an existing group, its claimMatch not yet taken. */
export function insertIdentity(ctx: DomainContext, principal: Principal, input: NewIdentity): Record_<'identity'> {
  const claimMatch = input.claimMatch ?? {};
  const rec = records.identity({ parent: input.parent, name: input.name, description: input.description, email: input.email, claimMatch, createTime: now(ctx) });
  if (input.staticKeys) rec.data.staticKeys = staticKeysExpiring(ctx, input.staticKeys);
  if (input.awsIdentity) rec.data.awsIdentity = input.awsIdentity;
  if (input.servicePrincipal) rec.data.servicePrincipal = input.servicePrincipal;
  // A pattern identity is not found by index (the exchange tries each: claim-match.ts), nor unique.
  return insertChild(ctx, rec, () => isExact(claimMatch) && ensureClaimUnique(ctx, principal, claimMatch.issuer!, claimMatch.subject!));
}

const ONEOF_PAIRS = [['issuer', 'issuerPattern'], ['subject', 'subjectPattern'], ['audience', 'audiencePattern']] as const;

/**
 * The claimMatch an update makes (undefined when it names none of its fields), held to the
 * create rules: a field set to a value replaces its other form (the published oneof: setting
 * subject clears subjectPattern), unless the update sets both, which is refused; a field
 * cleared (masked and absent, empty) is removed. The same for exact and pattern identities.
 */
function changedClaimMatch(current: ClaimMatch, patch: Changes): ClaimMatch | undefined {
  const prefix = 'claimMatch.';
  const fields = [...patch.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  if (!fields.length) return undefined;
  const next: Record<string, unknown> = { ...current };
  for (const field of fields) {
    const value = patch.get(prefix + field);
    const empty = value === undefined || value === null || value === '' || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);
    if (empty) {
      delete next[field];
      continue;
    }
    next[field] = value;
    const pair = ONEOF_PAIRS.find((p) => (p as readonly string[]).includes(field));
    const other = pair?.find((f) => f !== field);
    if (other && !fields.includes(other)) delete next[other];
  }
  const parsed = CreateClaimMatch.safeParse(next);
  if (!parsed.success) throw invalidArgument(zodViolations(parsed.error).map((v) => ({ ...v, field: v.field === 'body' ? 'claimMatch' : `claimMatch.${v.field}` })));
  return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
}

/** Static keys expire, by default and at most 365 days after creation (the published rule). */
function staticKeysExpiring(ctx: DomainContext, keys: StaticKeys): StaticKeys & { expirationTime: string } {
  const created = Date.parse(now(ctx));
  const latest = created + STATIC_KEYS_MAX_MS;
  const asked = keys.expirationTime === undefined ? latest : Date.parse(keys.expirationTime);
  if (asked > latest) throw invalidField('identity.staticKeys.expirationTime', 'must be at most 365 days after creation');
  if (asked <= created) throw invalidField('identity.staticKeys.expirationTime', 'must be in the future');
  return { ...keys, expirationTime: new Date(asked).toISOString() };
}

/**
 * In a write, for serve alone: serve is its own token issuer at its base URL, which changes
 * when it restarts on another port (or gets --public-url); identities of the previous issuer
 * move with it.
 */
export function moveIssuer(ctx: DomainContext, from: string, to: string): void {
  for (const rec of ctx.store.findByAltKeyFirstPart(I.storeKind, from)) {
    const claim = rec.data.claimMatch;
    claim.issuer = to;
    // Found by its issuer's alt_key: an exact identity, its subject named.
    rec.altKey = claimKey(to, claim.subject ?? '');
    ctx.store.update(rec);
  }
}

/**
 * A claimMatch names one identity across the whole data dir (a token maps to one identity),
 * so a taken pair is always refused; the identity holding it is named only to a caller who
 * may read it. Others learn that the pair is taken, and nothing about who holds it.
 */
function ensureClaimUnique(ctx: DomainContext, principal: Principal, issuer: string, subject: string, selfUid?: string): void {
  const clash = ctx.store.findByAltKey(I.storeKind, claimKey(issuer, subject)).find((r) => r.uid !== selfUid);
  if (!clash) return;
  if (ctx.authz.can(principal, capability(I, 'list'), clash.uid)) throw alreadyExists(`An identity with this claimMatch already exists: ${clash.uid}`);
  throw alreadyExists('An identity with this claimMatch already exists (each issuer and subject pair can belong to one identity only)');
}
