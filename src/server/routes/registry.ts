// /registry/v2/: repos (list, get, update) and tags (list, and get as an extension).
import { repos as RP, tags as TG } from '../../api/registry/index.js';
import type { ResourceRoutes } from '../handler.js';
import { repoToWire } from '../models.js';
import { changesOf } from './parse.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function registryRoutes(rest: RestContext): ResourceRoutes[] {
  const { domain } = rest;
  const repos = resourceRoutes(rest, RP, domain.repos, {
    update: async (req) => ({ body: repoToWire(await domain.repos.update(req.principal, req.uid, changesOf(req, RP))) }),
  });
  return [repos, resourceRoutes(rest, TG, domain.tags)];
}
