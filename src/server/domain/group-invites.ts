// Group invites: a secret code that binds its redeemer to the invite's group with the
// invite's role. The code is made at create, returned by that call only, kept as a SHA-256
// hash. A wrong code is code 5 and says nothing else; an email-restricted invite needs a
// principal whose email matches (code 7 otherwise, before anything about the invite is
// said); expired or already used (single use) is code 9.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, Code, failedPrecondition } from '../../api/errors.js';
import { capabilities, groupInvites as GI, groups as G, roles } from '../../api/registry/index.js';
import type { Principal } from '../auth/principal.js';
import type { Record_ } from '../store/store.js';
import { authorize, commit, insertChild, mustGet, now, type DomainContext } from './context.js';
import { grantableRole } from './grants.js';
import { readOperations } from './reads.js';
import { records } from './kinds/index.js';
import { timestamp } from './records.js';
import { bindRole } from './role-bindings.js';

export interface NewGroupInvite {
  parent: string;
  roleUid: string;
  email?: string | undefined;
  /** How long the code is good for. */
  ttlSeconds: number;
  singleUse: boolean;
}

/** An invite as a seed carries it: its expiry, and the hash of its code (never the code). */
export interface LoadedGroupInvite extends Omit<NewGroupInvite, 'ttlSeconds'> {
  expirationTime: string;
  codeHash: string;
}

export const inviteCodeHash = (code: string) => createHash('sha256').update(code).digest('hex');

/** `pctl_invite_…`: the prefix lets log and trace masking recognise it. */
function newInviteCode(random: { bytes(n: number): Buffer }): string {
  return `pctl_invite_${random.bytes(24).toString('base64url')}`;
}

export function groupInviteOperations(ctx: DomainContext) {
  const noSuchCode = () => new ApiError(Code.NOT_FOUND, 'No invite matches this code', { reason: 'INVITE_NOT_FOUND' });

  return {
    ...readOperations(ctx, GI),

    /** The invite, and its code: the only time the code is told. */
    async create(principal: Principal, input: NewGroupInvite): Promise<{ invite: Record_<'groupInvite'>; code: string }> {
      // An invite hands out a role, as a binding does: its published rule needs role_bindings.create too.
      authorize(ctx, principal, capabilities(GI, 'create'), G, input.parent, 'parent');
      const code = newInviteCode(ctx.random);
      const t = ctx.clock();
      const invite = await commit(ctx, principal, 'groupInvites.create', () => insertInvite(ctx, principal, {
        ...input, codeHash: inviteCodeHash(code), expirationTime: timestamp(t + input.ttlSeconds * 1000),
      }));
      return { invite, code };
    },

    async delete(principal: Principal, uid: string): Promise<void> {
      authorize(ctx, principal, capabilities(GI, 'delete'), GI, uid);
      await commit(ctx, principal, 'groupInvites.delete', () => ctx.store.remove(mustGet(ctx, GI, uid).uid));
    },

    /** Binds the principal's own identity with the invite's role on its group; the binding (an existing one when redeemed before). */
    async redeem(principal: Principal, code: string): Promise<Record_<'roleBinding'>> {
      const hash = inviteCodeHash(code);
      return commit(ctx, principal, 'groupInvites.redeem', () => {
        const invite = ctx.store
          .findByAltKey(GI.storeKind, hash.slice(0, 16))
          .find((r) => {
            const stored = r.data.codeHash;
            return stored.length === hash.length && timingSafeEqual(Buffer.from(stored), Buffer.from(hash));
          });
        if (!invite) throw noSuchCode();
        const { email, expirationTime, roleUid } = invite.data;
        if (email && email.toLowerCase() !== principal.email?.toLowerCase()) {
          throw new ApiError(Code.PERMISSION_DENIED, 'This invite is for another email address: redeem it with a token whose email claim is that address', {
            reason: 'INVITE_EMAIL_MISMATCH',
          });
        }
        const fail = (type: string, message: string) => failedPrecondition(message, [{ type, subject: invite.uid, description: message }]);
        if (now(ctx) >= expirationTime) throw fail('INVITE_EXPIRED', `This invite expired at ${expirationTime}`);
        if (invite.data.singleUse && invite.data.redeemed) throw fail('INVITE_USED', 'This single-use invite has already been redeemed');
        if (!ctx.store.get(roleUid, roles.storeKind)) throw fail('INVITE_ROLE_GONE', "This invite's role no longer exists");
        invite.data.redeemed = true;
        ctx.store.update(invite);
        return bindRole(ctx, principal, { parent: invite.parent!, identityUid: principal.identityUid, roleUid }, 'invite');
      });
    },
  };
}

/** In a write: an invite of an existing group, for a role the principal could bind there. */
export function insertInvite(ctx: DomainContext, principal: Principal, input: LoadedGroupInvite): Record_<'groupInvite'> {
  const rec = records.groupInvite({
    parent: input.parent, roleUid: input.roleUid, roleName: '', email: input.email, singleUse: input.singleUse, codeHash: input.codeHash,
    expirationTime: input.expirationTime, createTime: now(ctx),
  });
  return insertChild(ctx, rec, () => {
    rec.name = grantableRole(ctx, principal, input.parent, input.roleUid, 'roleUid').name;
  });
}
