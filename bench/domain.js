// The cost of the domain's async boundary: a domain operation answers with a promise (so a
// store that answers asynchronously can replace the synchronous one without touching a rule);
// what does that cost a call against the same checks made synchronously? In this process,
// no server: `GET one group` as the domain does it (404, then the caller's grant), by the
// owner, interleaved A B A B over rounds; the median ns per call of each.
import { performance } from 'node:perf_hooks';
import { groups } from '../dist/api/registry/index.js';
import { bootstrap } from '../dist/server/data/bootstrap.js';
import { domainContext, readable } from '../dist/server/domain/context.js';
import { createDomain } from '../dist/server/domain/index.js';
import { systemRandom } from '../dist/server/base/random.js';
import { Store } from '../dist/server/store/store.js';
import { median } from './lib.js';

/** ns per call of the synchronous checks and of the async operation making the same ones. */
export async function domainBoundary(dataDir, { calls = 200_000, rounds = 7 } = {}) {
  const store = new Store(dataDir);
  try {
    const ctx = domainContext(store, Date.now, systemRandom);
    await ctx.lists.ensureTokenKey();
    await bootstrap(ctx, { issuer: 'http://127.0.0.1' });
    const domain = createDomain(ctx);
    const principal = { identityUid: store.getMeta('owner_identity') };
    const uid = store.getMeta('organization');
    const sync = () => {
      const t0 = performance.now();
      for (let i = 0; i < calls; i++) readable(ctx, principal, groups, uid);
      return ((performance.now() - t0) * 1e6) / calls;
    };
    const async = async () => {
      const t0 = performance.now();
      for (let i = 0; i < calls; i++) await domain.groups.get(principal, uid);
      return ((performance.now() - t0) * 1e6) / calls;
    };
    sync();
    await async();
    const a = [];
    const b = [];
    for (let r = 0; r < rounds; r++) {
      a.push(sync());
      b.push(await async());
    }
    return { syncNs: median(a), asyncNs: median(b) };
  } finally {
    await store.close();
  }
}
