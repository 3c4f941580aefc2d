// /registry/v2/: repos (list, get, update) and tags (list, and get as an extension).
// Repos nest under a group (`<group uid>/<16 hex>`), tags under their repo
// (`<repo uid>/<16 hex>`). Neither is created through the API: they come from seeds.
import { alreadyExists } from '../../api/errors.js';
import * as R from '../../api/resources.js';
import { UPDATE_RULES } from '../../api/schemas.js';
import { authorize, listResponse, mustGet, now, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import { repoToWire, tagToWire } from '../models.js';
import { singleParam } from '../params.js';
import { resolveChanges, ruledChanges, updateMaskParam } from '../update.js';


export function registryRoutes(ctx: ServerContext): ResourceRoutes[] {
  const { store, authz } = ctx;

  const repos: ResourceRoutes = {
    path: R.repos.path,
    list: (req) => listResponse(ctx, 'repos', req.query, { kind: 'repo', scope: authz.scope(req.principal, 'repo.list') }, repoToWire),
    get: (req) => ({ body: repoToWire(authorize(ctx, req.principal, 'repo.list', 'repo', 'Repo', req.uid)) }),
    update: async (req) => {
      authorize(ctx, req.principal, 'repo.update', 'repo', 'Repo', req.uid);
      const changes = resolveChanges(await req.json(), updateMaskParam(req.query), R.repos);
      const { name, description } = ruledChanges(changes, UPDATE_RULES.repo);
      return {
        body: repoToWire(await store.write(() => {
          const rec = mustGet(ctx, 'repo', 'Repo', req.uid);
          let changed = false;
          if (name !== undefined && name !== rec.name) {
            // A repo's name is its address in the group's registry: unique among its siblings.
            const clash = store
              .prepare("SELECT uid FROM resources WHERE parent = ? AND kind = 'repo' AND name = ? AND uid <> ? LIMIT 1")
              .get(rec.parent, name, rec.uid) as { uid: string } | undefined;
            if (clash) {
              // Named only to a caller who may read it (repo.update does not imply repo.list).
              const named = authz.can(req.principal, 'repo.list', clash.uid) ? `: ${clash.uid}` : '';
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
  };

  const tags: ResourceRoutes = {
    path: R.tags.path,
    list: (req) => {
      // The spec scopes tags by their repo; a repo that does not exist is a 404, not an empty list.
      const repo = singleParam(req.query, 'uidp.children_of', ['uidp.children_of', 'uidp.childrenOf']);
      if (repo) authorize(ctx, req.principal, 'tag.list', 'repo', 'Repo', repo, 'uidp.children_of');
      return listResponse(ctx, 'tags', req.query, { kind: 'tag', scope: authz.scope(req.principal, 'tag.list') }, tagToWire);
    },
    // Not in the spec ("Get of a single tag is also not shown"); offered by serve for convenience.
    get: (req) => ({ body: tagToWire(authorize(ctx, req.principal, 'tag.list', 'tag', 'Tag', req.uid)) }),
  };

  return [repos, tags];
}
