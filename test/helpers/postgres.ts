// Test helpers for tests that need PostgreSQL itself (several servers on one database, e.g.
// replicas): the cluster's base URL comes from PCTL_TEST_DATABASE, which scripts/test-postgres.mjs sets.
import { dropDatabase, freshDatabaseUrl } from '../../scripts/pg-cluster.mjs';

/**
 * A schema of its own on the cluster, dropped after the test: pass the URL as `database` to
 * several startTestServer calls to have them share one database.
 */
export async function sharedTestDatabase(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const base = process.env.PCTL_TEST_DATABASE;
  if (!base) throw new Error('PCTL_TEST_DATABASE is not set: test/postgres runs in the postgres leg (npm run test:postgres)');
  const url = await freshDatabaseUrl(base);
  t.teardown(() => dropDatabase(url));
  return url;
}
