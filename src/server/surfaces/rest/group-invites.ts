// /iam/v2/groupInvites: the generic create, delete, list and get (there is no update, so PATCH
// is 405 with code 12 UNIMPLEMENTED like any method a route lacks), and serve's extension
// POST /iam/v2/groupInvites:redeem {code}: the caller's own identity (from its bearer token)
// is bound to the invite's group with the invite's role.
import * as S from '../../../api/schemas.js';
import type { ResourceRoutes } from '../../pipeline/handler.js';
import { roleBindingToWire } from '../../domain/kinds/role-binding.js';
import { parseBody } from '../../pipeline/input.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function groupInviteRoutes(rest: RestContext): ResourceRoutes {
  const { domain, store } = rest;
  return resourceRoutes(rest, rest.operations.groupInvites, {
    actions: {
      redeem: async (req) => {
        const { code } = parseBody(S.RedeemInviteBody, await req.json());
        return { body: roleBindingToWire(await domain.groupInvites.redeem(req.principal, code), store) };
      },
    },
  });
}
