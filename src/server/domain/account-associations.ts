// Account associations: one per group, its uid the group's uid (stored at
// associationStoreUid). Every write ends with the whole association checked against the one
// schema create uses, so an update cannot leave a provider block half-filled (google needs
// projectId and projectNumber together). `check` can judge presence and format only: a
// local server cannot reach a cloud.
import { alreadyExists, invalidArgument, notFound } from '../../api/errors.js';
import { accountAssociations as AA, capabilities, groups as G } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import { zodViolations } from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, mustGet, now, resolve, type Deferred, type DomainContext } from './context.js';
import type { Changes } from './patch.js';
import { readOperations } from './reads.js';
import { associationStoreUid } from './kinds/account-association.js';
import { records } from './kinds/index.js';

export type NewAccountAssociation = { parent: string } & S.AccountAssociationFields;

export type ProviderType = keyof typeof CHECKED;

export interface CheckResult {
  status: 'READY' | 'NOT_READY';
  reason: 'NOT_CONFIGURED' | 'INVALID_FORMAT' | 'FORMAT_VALID';
  message: string;
}

const CHECKED = { AMAZON: 'amazon', GOOGLE: 'google', AZURE: 'azure' } as const;

export function accountAssociationOperations(ctx: DomainContext) {
  const { store, authz } = ctx;

  /** The association of the group `uid` (404 naming the wire uid), then 403 without `cap` on it. */
  const authorized = (principal: Principal, cap: readonly string[], uid: string): Record_<'accountAssociation'> => {
    const rec = store.get(associationStoreUid(uid), AA.storeKind);
    if (!rec) throw notFound(AA.kind, uid);
    authz.require(principal, cap, rec.uid);
    return rec;
  };

  return {
    list: readOperations(ctx, AA).list,

    /** By its group's uid. */
    async get(principal: Principal, uid: string): Promise<Record_<'accountAssociation'>> {
      return authorized(principal, capabilities(AA, 'list'), uid);
    },

    async create(principal: Principal, input: NewAccountAssociation): Promise<Record_<'accountAssociation'>> {
      authorize(ctx, principal, capabilities(AA, 'create'), G, input.parent, 'parent');
      // The provider blocks' formats, as an update checks them, whichever surface made the input.
      const { parent: _parent, ...fields } = input;
      validated(fields);
      return commit(ctx, principal, 'accountAssociations.create', () => insertAccountAssociation(ctx, input));
    },

    async update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_<'accountAssociation'>> {
      authorized(principal, capabilities(AA, 'update'), uid);
      const patch = await resolve(changes);
      return commit(ctx, principal, 'accountAssociations.update', () => {
        const rec = authorized(principal, capabilities(AA, 'update'), uid);
        if (patch.size === 0) return rec;
        const next = validated(applyChanges(fieldsOf(rec), patch));
        const updated = records.accountAssociation({ parent: rec.parent!, ...next, createTime: rec.createTime, updateTime: now(ctx) });
        store.update(updated);
        return updated;
      });
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      authorized(principal, capabilities(AA, 'delete'), uid);
      await commit(ctx, principal, 'accountAssociations.delete', () => store.remove(authorized(principal, capabilities(AA, 'delete'), uid).uid));
    },

    /** Whether the provider's block is there and well formed; the provider type is read after the caller is authorized. */
    async check(principal: Principal, uid: string, providerType: Deferred<ProviderType>): Promise<CheckResult> {
      const rec = authorized(principal, capabilities(AA, 'CheckAccountAssociation'), uid);
      const key = CHECKED[await resolve(providerType)];
      const block = rec.data[key];
      if (block === undefined) {
        return { status: 'NOT_READY', reason: 'NOT_CONFIGURED', message: `No ${key} block: add one with an update (pctl serve checks presence and format only; it cannot reach the cloud)` };
      }
      const schema = { amazon: S.AmazonBlock, google: S.GoogleBlock, azure: S.AzureBlock }[key];
      const parsed = schema.safeParse(block);
      if (!parsed.success) {
        const first = zodViolations(parsed.error)[0];
        return { status: 'NOT_READY', reason: 'INVALID_FORMAT', message: `The ${key} block is malformed: ${first?.field ?? key}: ${first?.description ?? 'invalid'}` };
      }
      return { status: 'READY', reason: 'FORMAT_VALID', message: `The ${key} block is present and well formed (pctl serve checks presence and format only; it cannot reach the cloud)` };
    },
  };
}

/** In a write: the association of an existing group that has none yet. */
export function insertAccountAssociation(ctx: DomainContext, input: NewAccountAssociation): Record_<'accountAssociation'> {
  const rec = records.accountAssociation({ ...input, createTime: now(ctx) });
  mustGet(ctx, G, input.parent, 'parent');
  if (ctx.store.get(rec.uid)) {
    throw alreadyExists(`Group ${input.parent} already has an account association (a group has at most one; update it instead)`);
  }
  ctx.store.insert(rec);
  return rec;
}

function validated(fields: Record<string, unknown>): S.AccountAssociationFields {
  const result = S.AccountAssociationFields.safeParse(fields);
  if (!result.success) throw invalidArgument(zodViolations(result.error));
  return result.data;
}

/** The fields of a stored association, as the create schema reads them. */
function fieldsOf(rec: Record_<'accountAssociation'>): Record<string, unknown> {
  const { description, ...providers } = rec.data;
  return { name: rec.name, ...(description ? { description } : {}), ...providers };
}

/** An update's changes (dotted leaves) applied to the stored fields; a block whose leaves are all gone goes. */
function applyChanges(fields: Record<string, unknown>, changes: Changes): Record<string, unknown> {
  const out = structuredClone(fields);
  for (const [path, value] of changes) {
    const [top, leaf] = path.split('.') as [string, string | undefined];
    if (!leaf) {
      if (value === undefined || value === null) delete out[top];
      else out[top] = value;
      continue;
    }
    const block = { ...((out[top] as Record<string, unknown> | undefined) ?? {}) };
    if (value === undefined || value === null) delete block[leaf];
    else block[leaf] = value;
    if (Object.keys(block).length) out[top] = block;
    else delete out[top];
  }
  return out;
}
