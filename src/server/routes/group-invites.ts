// /iam/v2/groupInvites: create and delete (list and get are the generic ones; there is no
// update, so PATCH is 405 with code 12 UNIMPLEMENTED like any method a route lacks), and
// serve's extension POST /iam/v2/groupInvites:redeem {code}: the caller's own identity (from
// its bearer token) is bound to the invite's group with the invite's role.
//
// The code is a secret: made at create, returned by that response only, kept as a SHA-256
// hash. A wrong code is code 5 and says nothing else; an email-restricted invite needs a
// token whose email claim matches (code 7 otherwise, before anything about the invite is
// said); expired or already used (single use) is code 9.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, Code, failedPrecondition } from '../../api/errors.js';
import { capability, groupInvites as GI, groups, roleBindings, roles } from '../../api/registry/index.js';
import * as S from '../../api/schemas.js';
import { authorize, insertChild, mustGet, now, parseBody, type ServerContext } from '../context.js';
import type { ResourceRoutes } from '../http.js';
import { bindingKey, groupInviteToWire, newChildUid, records, roleBindingToWire, timestamp } from '../models.js';
import type { Random } from '../random.js';
import { grantableRole } from './grants.js';
import { resourceRoutes } from './resource.js';

const hashOf = (code: string) => createHash('sha256').update(code).digest('hex');

/** `pctl_invite_…`: the prefix lets log and trace masking recognise it. */
function newCode(random: Random): string {
  return `pctl_invite_${random.bytes(24).toString('base64url')}`;
}

export function groupInviteRoutes(ctx: ServerContext): ResourceRoutes {
  const { store, authz } = ctx;
  const noSuchCode = () => new ApiError(Code.NOT_FOUND, 'No invite matches this code', { reason: 'INVITE_NOT_FOUND' });

  return resourceRoutes(ctx, GI, {
    create: async (req) => {
      const body = parseBody(S.CreateGroupInviteBody, await req.json());
      const { roleUid, email, ttl, singleUse } = body.groupInvite;
      authorize(ctx, req.principal, capability(GI, 'create'), groups, body.parent, 'parent');
      // An invite hands out a role, as a binding does.
      authz.require(req.principal, capability(roleBindings, 'create'), body.parent);
      const code = newCode(ctx.random);
      const t = ctx.clock();
      const rec = records.groupInvite({
        parent: body.parent, roleUid, roleName: '', email, singleUse: singleUse ?? false, codeHash: hashOf(code),
        expirationTime: timestamp(t + S.inviteTtlSeconds(ttl)! * 1000), createTime: timestamp(t),
      });
      await insertChild(ctx, rec, () => {
        rec.name = grantableRole(ctx, req.principal, body.parent, roleUid, 'roleUid').name;
      });
      return { body: groupInviteToWire(rec, store, code) };
    },
    remove: async (req) => {
      authorize(ctx, req.principal, capability(GI, 'delete'), GI, req.uid);
      await store.write(() => store.remove(mustGet(ctx, GI, req.uid).uid));
      return {};
    },
    actions: {
      redeem: async (req) => {
        const { code } = parseBody(S.RedeemInviteBody, await req.json());
        const hash = hashOf(code);
        const binding = await store.write(() => {
          const invite = store
            .findByAltKey(GI.storeKind, hash.slice(0, 16))
            .find((r) => {
              const stored = String(r.data.codeHash);
              return stored.length === hash.length && timingSafeEqual(Buffer.from(stored), Buffer.from(hash));
            });
          if (!invite) throw noSuchCode();
          const email = String(invite.data.email ?? '');
          if (email && email.toLowerCase() !== req.principal.email?.toLowerCase()) {
            throw new ApiError(Code.PERMISSION_DENIED, 'This invite is for another email address: redeem it with a token whose email claim is that address', {
              reason: 'INVITE_EMAIL_MISMATCH',
            });
          }
          const fail = (type: string, message: string) => failedPrecondition(message, [{ type, subject: invite.uid, description: message }]);
          if (now(ctx) >= String(invite.data.expirationTime)) throw fail('INVITE_EXPIRED', `This invite expired at ${String(invite.data.expirationTime)}`);
          if (invite.data.singleUse === true && invite.data.redeemed === true) throw fail('INVITE_USED', 'This single-use invite has already been redeemed');
          const roleUid = String(invite.data.roleUid);
          const role = store.get(roleUid, roles.storeKind);
          if (!role) throw fail('INVITE_ROLE_GONE', "This invite's role no longer exists");
          invite.data.redeemed = true;
          store.update(invite);
          // Redeeming twice (a reusable invite) leaves one binding.
          const existing = store.findByAltKey(roleBindings.storeKind, bindingKey(req.principal.identityUid, roleUid)).find((b) => b.parent === invite.parent);
          if (existing) return existing;
          const rec = records.roleBinding({
            uid: newChildUid(ctx.random, invite.parent!), parent: invite.parent!, identityUid: req.principal.identityUid, roleUid, roleName: role.name, createTime: now(ctx),
          });
          store.insert(rec);
          return rec;
        });
        return { body: roleBindingToWire(binding, store) };
      },
    },
  });
}
