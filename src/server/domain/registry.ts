// The registry: repos nest under a group (`<group uid>/<16 hex>`), tags under their repo
// (`<repo uid>/<16 hex>`). Neither is created through the API: they come from seeds. A repo
// may be renamed or described; its name is its address in the group's registry, unique
// among its siblings.
import { alreadyExists } from '../../api/errors.js';
import { capability, groups as G, repos as RP, tags as TG } from '../../api/registry/index.js';
import { singleParam } from '../params.js';
import { UPDATE_RULES } from '../../api/schemas.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, mustGet, now, resolve, type Deferred, type DomainContext } from './context.js';
import { ruledChanges, type Changes } from './patch.js';
import { readOperations, type ListParams } from './reads.js';
import { newChildUid, records } from './records.js';

export interface NewRepo { parent: string; name: string; description?: string | undefined }
export interface NewTag { parent: string; name: string; digest: string; deprecated?: boolean | undefined; updateTime?: string | undefined }

export function repoOperations(ctx: DomainContext) {
  const { store, authz } = ctx;
  return {
    ...readOperations(ctx, RP),

    async update(principal: Principal, uid: string, changes: Deferred<Changes>): Promise<Record_> {
      authorize(ctx, principal, capability(RP, 'update'), RP, uid);
      const { name, description } = ruledChanges(await resolve(changes), UPDATE_RULES.repo);
      return commit(ctx, principal, 'repos.update', () => {
        const rec = mustGet(ctx, RP, uid);
        let changed = false;
        if (name !== undefined && name !== rec.name) {
          const clash = store.siblingNamed(rec.parent!, RP.storeKind, name, rec.uid);
          if (clash) {
            // Named only to a caller who may read it (repo.update does not imply repo.list).
            const named = authz.can(principal, capability(RP, 'list'), clash.uid) ? `: ${clash.uid}` : '';
            throw alreadyExists(`A repo named ${name} already exists in this group${named}`);
          }
          rec.name = name;
          changed = true;
        }
        if (description !== undefined && description !== rec.data.description) {
          rec.data.description = description;
          changed = true;
        }
        // A PATCH that changes nothing leaves updateTime alone.
        if (!changed) return rec;
        rec.updateTime = now(ctx);
        store.update(rec);
        return rec;
      });
    },
  };
}

export function tagOperations(ctx: DomainContext) {
  const reads = readOperations(ctx, TG);
  return {
    ...reads,
    /** The spec scopes tags by their repo: a repo that does not exist is a 404, not an empty list. */
    async list(principal: Principal, params: ListParams) {
      const repo = singleParam(params, 'uidp.children_of', ['uidp.children_of', 'uidp.childrenOf']);
      if (repo) authorize(ctx, principal, capability(TG, 'list'), RP, repo, 'uidp.children_of');
      return reads.list(principal, params);
    },
  };
}

/** In a write, for serve alone (seeds): a repo of an existing group; its name unique there. */
export function insertRepo(ctx: DomainContext, input: NewRepo): Record_ {
  mustGet(ctx, G, input.parent, 'parent');
  if (ctx.store.siblingNamed(input.parent, RP.storeKind, input.name, '')) throw alreadyExists(`A repo named ${input.name} already exists in this group`);
  const rec = records.repo({ uid: newChildUid(ctx.random, input.parent), parent: input.parent, name: input.name, description: input.description, createTime: now(ctx) });
  ctx.store.insert(rec);
  return rec;
}

/** In a write, for serve alone (seeds): a tag of an existing repo; `updateTime` keeps a data set's history (created then too, when earlier). */
export function insertTag(ctx: DomainContext, input: NewTag): Record_ {
  mustGet(ctx, RP, input.parent, 'parent');
  const t = now(ctx);
  const updated = input.updateTime ?? t;
  const rec = records.tag({
    uid: newChildUid(ctx.random, input.parent), parent: input.parent, name: input.name, digest: input.digest, deprecated: input.deprecated,
    createTime: updated < t ? updated : t, updateTime: updated,
  });
  ctx.store.insert(rec);
  return rec;
}
