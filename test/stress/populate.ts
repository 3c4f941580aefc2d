// Big data dirs for the load tests, made the direct way: serve's bootstrap, then rows inserted
// into the store in one transaction (creating 50,000 groups over HTTP would take minutes).
import { bootstrap } from '../../src/server/data/bootstrap.js';
import { domainContext } from '../../src/server/domain/context.js';
import { builtinRoleUid, newChildUid, timestamp } from '../../src/server/domain/records.js';
import { systemRandom } from '../../src/server/base/random.js';
import { Store } from '../../src/server/store/store.js';

export interface Populating {
  org: string;
  /** Inserts a group below `parent`; each one a few ms newer than the last. */
  group: (parent: string, name: string) => string;
  /** Inserts the identity `vic` (issuer http://127.0.0.1, which serve moves to its own URL). */
  viewer: () => string;
  /** Binds `identity` to the built-in viewer role on `group`. */
  bindViewer: (identity: string, group: string) => void;
}

/** Bootstraps a data dir as serve would and runs `build` in one store transaction. */
export async function populate<T>(dataDir: string, build: (p: Populating) => T): Promise<T> {
  const store = new Store(dataDir);
  try {
    // serve moves identities of this issuer to its own URL when it starts.
    await bootstrap(domainContext(store, Date.now, systemRandom), { issuer: 'http://127.0.0.1' });
    const org = store.getMeta('organization')!;
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const t = timestamp(start);
    let made = 0;
    const role = builtinRoleUid('viewer');
    return store.transaction(() => build({
      org,
      group: (parent, name) => {
        const time = timestamp(start + made++ * 7);
        const uid = newChildUid(systemRandom, parent);
        store.insert({ uid, kind: 'group', parent, name, altKey: null, createTime: time, updateTime: time, data: { description: '', verified: false } });
        return uid;
      },
      viewer: () => {
        const uid = newChildUid(systemRandom, org);
        store.insert({
          uid, kind: 'identity', parent: org, name: 'vic', altKey: 'http://127.0.0.1\nvic', createTime: t, updateTime: t,
          data: { description: '', claimMatch: { issuer: 'http://127.0.0.1', subject: 'vic' }, lastSeenTime: t },
        });
        return uid;
      },
      bindViewer: (identity, group) => {
        store.insert({
          uid: newChildUid(systemRandom, group), kind: 'roleBinding', parent: group, name: 'viewer', altKey: `${identity}\n${role}`,
          createTime: t, updateTime: t, data: { identityUid: identity, roleUid: role },
        });
      },
    }));
  } finally {
    await store.close();
  }
}
