// /iam/v2/groupInvites: create (delete, list and get are the generic ones; there is no
// update, so PATCH is 405 with code 12 UNIMPLEMENTED like any method a route lacks), and
// serve's extension POST /iam/v2/groupInvites:redeem {code}: the caller's own identity (from
// its bearer token) is bound to the invite's group with the invite's role.
import { groupInvites as GI } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import type { ResourceRoutes } from '../handler.js';
import { groupInviteToWire, roleBindingToWire } from '../models.js';
import { parseBody } from './parse.js';
import { resourceRoutes, type RestContext } from './resource.js';

export function groupInviteRoutes(rest: RestContext): ResourceRoutes {
  const { domain, store } = rest;
  const invites = domain.groupInvites;
  // Not its create: that answers with the invite and its code.
  const generic = { list: invites.list.bind(invites), get: invites.get.bind(invites), delete: invites.delete.bind(invites) };
  return resourceRoutes(rest, GI, generic, {
    create: async (req) => {
      const body = parseBody(S.CreateGroupInviteBody, await req.json());
      const { roleUid, email, ttl, singleUse } = body.groupInvite;
      const { invite, code } = await domain.groupInvites.create(req.principal, {
        parent: body.parent, roleUid, email, singleUse: singleUse ?? false, ttlSeconds: S.inviteTtlSeconds(ttl)!,
      });
      return { body: groupInviteToWire(invite, store, code) };
    },
    actions: {
      redeem: async (req) => {
        const { code } = parseBody(S.RedeemInviteBody, await req.json());
        return { body: roleBindingToWire(await domain.groupInvites.redeem(req.principal, code), store) };
      },
    },
  });
}
