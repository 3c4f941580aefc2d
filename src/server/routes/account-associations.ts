// /iam/v2/accountAssociations: one per group, its uid the group's uid (stored at
// associationStoreUid). List is the generic one; get, create, update, delete and the
// custom method `:check` map the wire uid to the stored one. Every write ends with the whole
// association checked against the one schema create uses, so an update cannot leave a
// provider block half-filled (google needs projectId and projectNumber together).
import { alreadyExists, invalidArgument, notFound } from '../../api/errors.js';
import { accountAssociations as AA, capability, groups } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import { zodViolations } from '../../api/schemas.js';
import { authorize, mustGet, now, parseBody, type ServerContext } from '../context.js';
import type { Principal, ResourceRoutes } from '../http.js';
import { accountAssociationToWire, associationStoreUid, records } from '../models.js';
import type { Record_ } from '../store/store.js';
import { resolveChanges, updateMaskParam, type Changes } from '../update.js';
import { resourceRoutes } from './resource.js';

const CHECKED = { AMAZON: 'amazon', GOOGLE: 'google', AZURE: 'azure' } as const;

/** The fields of a stored association, as the create schema reads them. */
function fieldsOf(rec: Record_): Record<string, unknown> {
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

export function accountAssociationRoutes(ctx: ServerContext): ResourceRoutes {
  const { store, authz } = ctx;

  /** The association of the group `uid` (404 naming the wire uid), then 403 without `cap` on it. */
  function authorized(principal: Principal, cap: string, uid: string): Record_ {
    const rec = store.get(associationStoreUid(uid), AA.storeKind);
    if (!rec) throw notFound(AA.kind, uid);
    authz.require(principal, cap, rec.uid);
    return rec;
  }

  function validated(fields: Record<string, unknown>): S.AccountAssociationFields {
    const result = S.AccountAssociationFields.safeParse(fields);
    if (!result.success) throw invalidArgument(zodViolations(result.error));
    return result.data;
  }

  return resourceRoutes(ctx, AA, {
    get: (req) => ({ body: accountAssociationToWire(authorized(req.principal, capability(AA, 'list'), req.uid)) }),
    create: async (req) => {
      const body = parseBody(S.CreateAccountAssociationBody, await req.json());
      authorize(ctx, req.principal, capability(AA, 'create'), groups, body.parent, 'parent');
      const rec = records.accountAssociation({ parent: body.parent, ...body.accountAssociation, createTime: now(ctx) });
      await store.write(() => {
        mustGet(ctx, groups, body.parent, 'parent');
        if (store.get(rec.uid)) {
          throw alreadyExists(`Group ${body.parent} already has an account association (a group has at most one; update it instead)`);
        }
        store.insert(rec);
      });
      return { body: accountAssociationToWire(rec) };
    },
    update: async (req) => {
      authorized(req.principal, capability(AA, 'update'), req.uid);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), AA);
      const saved = await store.write(() => {
        const rec = authorized(req.principal, capability(AA, 'update'), req.uid);
        if (changes.size === 0) return rec;
        const next = validated(applyChanges(fieldsOf(rec), changes));
        const updated = records.accountAssociation({ parent: rec.parent!, ...next, createTime: rec.createTime, updateTime: now(ctx) });
        store.update(updated);
        return updated;
      });
      return { body: accountAssociationToWire(saved) };
    },
    remove: async (req) => {
      authorized(req.principal, capability(AA, 'delete'), req.uid);
      await store.write(() => store.remove(authorized(req.principal, capability(AA, 'delete'), req.uid).uid));
      return {};
    },
    actions: {
      // A local server cannot reach a cloud: it checks what it can, the presence and format of the block.
      check: async (req) => {
        const rec = authorized(req.principal, capability(AA, 'list'), req.uid);
        const { providerType } = parseBody(S.CheckAccountAssociationBody, await req.json());
        const key = CHECKED[providerType];
        const block = rec.data[key];
        if (block === undefined) {
          return { body: { status: 'NOT_READY', reason: 'NOT_CONFIGURED', message: `No ${key} block: add one with an update (pctl serve checks presence and format only; it cannot reach the cloud)` } };
        }
        const schema = { amazon: S.AmazonBlock, google: S.GoogleBlock, azure: S.AzureBlock }[key];
        const parsed = schema.safeParse(block);
        if (!parsed.success) {
          const first = zodViolations(parsed.error)[0];
          return { body: { status: 'NOT_READY', reason: 'INVALID_FORMAT', message: `The ${key} block is malformed: ${first?.field ?? key}: ${first?.description ?? 'invalid'}` } };
        }
        return { body: { status: 'READY', reason: 'FORMAT_VALID', message: `The ${key} block is present and well formed (pctl serve checks presence and format only; it cannot reach the cloud)` } };
      },
    },
  });
}

