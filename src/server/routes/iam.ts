// /iam/v2/groups: create, whose missing name is worded by the spec's name pattern. Update,
// delete, list and get of groups, and every method of identities, roles and role bindings,
// are the generic ones (resource.ts).
import { groups as G } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import type { ResourceRoutes } from '../handler.js';
import { groupToWire } from '../models.js';
import { groupNameViolation, parseBody } from './parse.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function iamRoutes(rest: RestContext): ResourceRoutes[] {
  const { domain } = rest;
  const groups = resourceRoutes(rest, G, domain.groups, {
    create: async (req) => {
      const raw = await req.json();
      const nameProblem = groupNameViolation((raw as { group?: { name?: unknown } } | null)?.group?.name);
      const body = parseBody(S.CreateGroupBody, raw, nameProblem ? [nameProblem] : []);
      return { body: groupToWire(await domain.groups.create(req.principal, { parent: body.parent, ...body.group }), rest.store) };
    },
  });
  return [groups];
}
