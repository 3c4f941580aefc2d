// /registry/v2/: repos (list, get, update) and tags (list, and get as an extension).
// Repos nest under a group (`<group uid>/<16 hex>`), tags under their repo
// (`<repo uid>/<16 hex>`). Neither is created through the API: they come from seeds.
import { alreadyExists } from '../../api/errors.js';
import { capability, repos as RP, tags as TG } from '../../api/registry/index.js';
import { UPDATE_RULES } from '../../api/schemas.js';
import { authorize, mustGet, now, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import { repoToWire } from '../models.js';
import { singleParam } from '../params.js';
import { resolveChanges, ruledChanges, updateMaskParam } from '../update.js';
import { resourceRoutes } from './resource.js';

export function registryRoutes(ctx: ServerContext): ResourceRoutes[] {
  const { store, authz } = ctx;

  const repos = resourceRoutes(ctx, RP, {
    update: async (req) => {
      authorize(ctx, req.principal, capability(RP, 'update'), RP, req.uid);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), RP);
      const { name, description } = ruledChanges(changes, UPDATE_RULES.repo);
      return {
        body: repoToWire(await store.write(() => {
          const rec = mustGet(ctx, RP, req.uid);
          let changed = false;
          if (name !== undefined && name !== rec.name) {
            // A repo's name is its address in the group's registry: unique among its siblings.
            const clash = store.siblingNamed(rec.parent!, RP.storeKind, name, rec.uid);
            if (clash) {
              // Named only to a caller who may read it (repo.update does not imply repo.list).
              const named = authz.can(req.principal, capability(RP, 'list'), clash.uid) ? `: ${clash.uid}` : '';
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
        })),
      };
    },
  });

  const tags = resourceRoutes(ctx, TG);
  const listTags = tags.list!;
  // The spec scopes tags by their repo; a repo that does not exist is a 404, not an empty list.
  tags.list = (req) => {
    const repo = singleParam(req.query, 'uidp.children_of', ['uidp.children_of', 'uidp.childrenOf']);
    if (repo) authorize(ctx, req.principal, capability(TG, 'list'), RP, repo, 'uidp.children_of');
    return listTags(req);
  };

  return [repos, tags];
}
