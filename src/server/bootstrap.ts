// First start on an empty data dir: one organization, the built-in roles, an owner
// identity bound to `owner` on the organization. One transaction: all or nothing.
import { BUILTIN_ROLES } from '../api/capabilities.js';
import { builtinRoleUid, claimKey, newChildUid, newOrganizationUid, records, timestamp } from './models.js';
import { bindRole, loadSeed, SeedValidationError, type SeedDocument } from './seed.js';
import type { Random } from './random.js';
import type { Record_, Store } from './store/store.js';

export const DEFAULT_ORGANIZATION = 'local';
export const OWNER_SUBJECT = 'owner';

export interface BootstrapOptions {
  /** The issuer named in the owner identity's claimMatch. */
  issuer: string;
  organizationName?: string;
  clock: () => number;
  /** Where the uids come from (ServeOptions.random). */
  random: Random;
  /**
   * A validated seed, loaded in the same transaction. Its first organization becomes the
   * organization (it holds the owner identity); the owner is bound `owner` on every seeded
   * organization. Without seeded organizations the default organization is created.
   */
  seed?: SeedDocument;
}

export function bootstrap(store: Store, opts: BootstrapOptions): void {
  const t = timestamp(opts.clock());
  store.transaction(() => {
    for (const role of BUILTIN_ROLES) {
      store.insert(records.role({ uid: builtinRoleUid(role.name), parent: null, ...role, builtin: true, createTime: t }));
    }
    const seeded = opts.seed ? loadSeed(store, opts.seed, t, opts.random).organizationUids : [];
    const org: Record_ = seeded.length
      ? store.get(seeded[0]!)!
      : records.group({
          uid: newOrganizationUid(opts.random), parent: null, name: opts.organizationName ?? DEFAULT_ORGANIZATION,
          description: 'Organization created by pctl serve', createTime: t,
        });
    if (!seeded.length) store.insert(org);
    const claimMatch = { issuer: opts.issuer, subject: OWNER_SUBJECT };
    if (store.findByAltKey('identity', claimKey(claimMatch.issuer, claimMatch.subject)).length) {
      throw new SeedValidationError([{ field: 'claimMatch', description: `issuer ${claimMatch.issuer} with subject ${OWNER_SUBJECT} is reserved for the owner of this serve` }]);
    }
    const owner = records.identity({
      uid: newChildUid(opts.random, org.uid), parent: org.uid, name: 'owner', description: 'Owner of this pctl serve (token in DIR/owner.token)',
      ...claimMatch, createTime: t,
    });
    store.insert(owner);
    for (const orgUid of seeded.length ? seeded : [org.uid]) bindRole(store, orgUid, owner.uid, 'owner', t, opts.random);
    store.setMeta('organization', org.uid);
    store.setMeta('owner_identity', owner.uid);
    store.setMeta('issuer', opts.issuer);
    store.setMeta('bootstrapped', t);
  });
}

/**
 * Serve is its own token issuer at its base URL, which changes when it restarts on another
 * port; identities that name serve's previous issuer move with it.
 */
export function followIssuer(store: Store, url: string): void {
  const previous = store.getMeta('issuer');
  if (!previous || previous === url) return;
  store.transaction(() => {
    for (const rec of store.findByAltKeyFirstPart('identity', previous)) {
      const claim = rec.data.claimMatch as { issuer: string; subject: string };
      claim.issuer = url;
      rec.altKey = claimKey(url, claim.subject);
      store.update(rec);
    }
    store.setMeta('issuer', url);
  });
}
