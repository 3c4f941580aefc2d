// /iam/v2/accountAssociations: one per group, addressed by the group's uid; the custom
// method `:check` judges a provider block's presence and format.
import { accountAssociations as AA } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import type { ResourceRoutes } from '../handler.js';
import { accountAssociationToWire } from '../models.js';
import { changesOf, parseBody } from './parse.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function accountAssociationRoutes(rest: RestContext): ResourceRoutes {
  const ops = rest.domain.accountAssociations;
  return resourceRoutes(rest, AA, { list: ops.list }, {
    get: async (req) => ({ body: accountAssociationToWire(await ops.get(req.principal, req.uid)) }),
    create: async (req) => {
      const body = parseBody(S.CreateAccountAssociationBody, await req.json());
      return { body: accountAssociationToWire(await ops.create(req.principal, { parent: body.parent, ...body.accountAssociation })) };
    },
    update: async (req) => ({ body: accountAssociationToWire(await ops.update(req.principal, req.uid, changesOf(req, AA))) }),
    remove: async (req) => (await ops.delete(req.principal, req.uid), {}),
    actions: {
      check: async (req) => ({
        body: await ops.check(req.principal, req.uid, async () => parseBody(S.CheckAccountAssociationBody, await req.json()).providerType),
      }),
    },
  });
}
