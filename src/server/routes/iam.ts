// /iam/v2/: groups, identities, roles and role bindings.
import { groups as G, identities as I, roleBindings as RB, roles as RL } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import type { ResourceRoutes } from '../handler.js';
import { groupToWire, identityToWire, roleBindingToWire, roleToWire } from '../models.js';
import { changesOf, groupNameViolation, parseBody } from './parse.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function iamRoutes(rest: RestContext): ResourceRoutes[] {
  const { domain, store } = rest;

  const groups = resourceRoutes(rest, G, domain.groups, {
    create: async (req) => {
      const raw = await req.json();
      const nameProblem = groupNameViolation((raw as { group?: { name?: unknown } } | null)?.group?.name);
      const body = parseBody(S.CreateGroupBody, raw, nameProblem ? [nameProblem] : []);
      return { body: groupToWire(await domain.groups.create(req.principal, { parent: body.parent, ...body.group })) };
    },
    update: async (req) => ({ body: groupToWire(await domain.groups.update(req.principal, req.uid, changesOf(req, G))) }),
    remove: async (req) => (await domain.groups.delete(req.principal, req.uid), {}),
  });

  const identities = resourceRoutes(rest, I, domain.identities, {
    create: async (req) => {
      const body = parseBody(S.CreateIdentityBody, await req.json());
      return { body: identityToWire(await domain.identities.create(req.principal, { parent: body.parent, ...body.identity })) };
    },
    update: async (req) => ({ body: identityToWire(await domain.identities.update(req.principal, req.uid, changesOf(req, I))) }),
    remove: async (req) => (await domain.identities.delete(req.principal, req.uid), {}),
  });

  const roles = resourceRoutes(rest, RL, domain.roles, {
    create: async (req) => {
      const body = parseBody(S.CreateRoleBody, await req.json());
      return { body: roleToWire(await domain.roles.create(req.principal, { parent: body.parent, ...body.role })) };
    },
    update: async (req) => ({ body: roleToWire(await domain.roles.update(req.principal, req.uid, changesOf(req, RL))) }),
    remove: async (req) => (await domain.roles.delete(req.principal, req.uid), {}),
  });

  const roleBindings = resourceRoutes(rest, RB, domain.roleBindings, {
    create: async (req) => {
      const body = parseBody(S.CreateRoleBindingBody, await req.json());
      return { body: roleBindingToWire(await domain.roleBindings.create(req.principal, { parent: body.parent, ...body.roleBinding }), store) };
    },
    remove: async (req) => (await domain.roleBindings.delete(req.principal, req.uid), {}),
  });

  return [groups, identities, roles, roleBindings];
}
