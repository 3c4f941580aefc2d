// Groups: create below an existing group, rename or describe, delete when empty; and the
// organizations (groups without a parent) that only serve itself makes.
import { failedPrecondition, invalidField } from '../../api/errors.js';
import { byStoreKind, capabilities, groups as G } from '../../api/registry/index.js';
import { groupNameProblem, ORG_KINDS, UPDATE_RULES } from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, insertChild, mustGet, now, patchRecord, resolve, type Deferred, type DomainContext } from './context.js';
import { ruledChanges, type Changes } from './patch.js';
import { readOperations } from './reads.js';
import { records } from './kinds/index.js';
import { newOrganizationUid } from './records.js';

export interface NewGroup {
  parent: string;
  name: string;
  description?: string | undefined;
  kind?: string | undefined;
}

type OrgKind = (typeof ORG_KINDS)[number];

const INHERITED_KIND = "is inherited from the organization: only an organization's kind may be set";

export function groupOperations(ctx: DomainContext) {
  return {
    ...readOperations(ctx, G),

    async create(principal: Principal, input: NewGroup): Promise<Record_<'group'>> {
      authorize(ctx, principal, capabilities(G, 'create'), G, input.parent, 'parent');
      if (input.kind !== undefined && input.kind !== 'ORG_KIND_UNSPECIFIED') throw invalidField('group.kind', INHERITED_KIND);
      // The surfaces check the name as they parse; the rule is the domain's, whoever calls.
      const nameProblem = groupNameProblem(input.name);
      if (nameProblem) throw invalidField('name', nameProblem);
      return commit(ctx, principal, 'groups.create', () => insertGroup(ctx, input));
    },

    async update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_<'group'>> {
      authorize(ctx, principal, capabilities(G, 'update'), G, uid);
      const patch = await resolve(changes);
      const { name, description } = ruledChanges(patch, UPDATE_RULES.group);
      const verified = patch.get('verified');
      if (patch.has('verified') && verified !== undefined && verified !== null && typeof verified !== 'boolean') throw invalidField('verified', 'must be a boolean');
      const kind = orgKindChange(patch);
      return commit(ctx, principal, 'groups.update', () => patchRecord(ctx, G, uid, patch, (rec) => {
        if (name !== undefined) rec.name = name;
        if (description !== undefined) rec.data.description = description;
        // A cleared verified (masked, absent from the body) is false, proto3's default.
        if (patch.has('verified')) rec.data.verified = verified === true;
        if (kind === null) delete rec.data.kind;
        else if (kind !== undefined) {
          if (rec.parent !== null) throw invalidField('kind', INHERITED_KIND);
          if (rec.data.verified !== true) throw failedPrecondition(`Organization ${rec.uid} is not verified: a kind may be set on a verified organization only`, [{ type: 'NOT_VERIFIED', subject: rec.uid, description: 'set verified in the same update or before' }]);
          rec.data.kind = kind;
        }
      }));
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      authorize(ctx, principal, capabilities(G, 'delete'), G, uid);
      await commit(ctx, principal, 'groups.delete', () => {
        const rec = mustGet(ctx, G, uid);
        ensureEmpty(ctx, rec);
        ctx.store.remove(rec.uid);
      });
    },
  };
}

/** The kind an update sets: undefined when it names none, null when it clears it (unspecified). */
function orgKindChange(patch: Changes): OrgKind | null | undefined {
  if (!patch.has('kind')) return undefined;
  const kind = patch.get('kind');
  if (kind === undefined || kind === null || kind === '' || kind === 'ORG_KIND_UNSPECIFIED') return null;
  if (typeof kind !== 'string' || !(ORG_KINDS as readonly string[]).includes(kind)) throw invalidField('kind', `must be one of ${ORG_KINDS.join(', ')}`);
  return kind as OrgKind;
}

/** In a write: a group below an existing one. */
export function insertGroup(ctx: DomainContext, input: NewGroup & Seeded): Record_<'group'> {
  return insertChild(ctx, records.group({ parent: input.parent, name: input.name, description: input.description, verified: input.verified, createTime: now(ctx) }));
}

/** What a seed may set on a group that a create may not: its verified flag (and an organization's kind). */
interface Seeded { verified?: boolean | undefined }

/** In a write, for serve alone (bootstrap, seeds): an organization, a group without a parent. */
export function insertOrganization(ctx: DomainContext, input: Omit<NewGroup, 'parent' | 'kind'> & Seeded & { kind?: OrgKind | undefined }): Record_<'group'> {
  const rec = records.group({
    uid: newOrganizationUid(ctx.random), parent: null, name: input.name, description: input.description, verified: input.verified, kind: input.kind, createTime: now(ctx),
  });
  ctx.store.insert(rec);
  return rec;
}

/** A group may be deleted only when it holds nothing: no resource of any kind lives in it. */
function ensureEmpty(ctx: DomainContext, group: Record_<'group'>): void {
  const counts = ctx.store.childCounts(group.uid);
  const parts = Object.entries(counts).map(([kind, n]) => {
    const nouns = byStoreKind(kind)?.nouns ?? { one: kind, many: kind };
    return `${n} ${n === 1 ? nouns.one : nouns.many}`;
  });
  if (!parts.length) return;
  const what = parts.join(', ');
  throw failedPrecondition(`Group ${group.uid} is not empty: it still contains ${what}`, [
    { type: 'RESOURCE_NOT_EMPTY', subject: group.uid, description: `the group still contains ${what}; delete them first` },
  ]);
}
