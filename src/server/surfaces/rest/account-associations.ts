// /iam/v2/accountAssociations: one per group, addressed by the group's uid (the generic
// operations); the custom method `:check` judges a provider block's presence and format.
import * as S from '../../../api/schemas.js';
import type { ResourceRoutes } from '../../pipeline/handler.js';
import { parseBody } from '../../pipeline/input.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function accountAssociationRoutes(rest: RestContext): ResourceRoutes {
  const ops = rest.domain.accountAssociations;
  return resourceRoutes(rest, rest.operations.accountAssociations, {
    actions: {
      check: async (req) => ({
        body: await ops.check(req.principal, req.uid, async () => parseBody(S.CheckAccountAssociationBody, await req.json()).providerType),
      }),
    },
  });
}
