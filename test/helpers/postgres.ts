// Test helpers for tests that need PostgreSQL itself (several servers on one database, e.g.
// replicas): the cluster's base URL, from PCTL_TEST_DATABASE, which scripts/test-postgres.mjs sets.
import test from 'ava';
import { dropDatabase, freshDatabaseUrl } from '../../scripts/pg-cluster.mjs';

/** The running cluster's base URL, or undefined when the tests run without one (the SQLite leg). */
export const postgresBaseUrl: string | undefined = process.env.PCTL_TEST_DATABASE || undefined;

/**
 * `test` when there is a cluster, else `test.skip` (ava lists the skip; no cluster here is
 * not a pass). Declare PostgreSQL-only tests with it:
 *   postgresTest('two servers on one database see each other\'s writes', async (t) => { … });
 */
export const postgresTest: typeof test.skip = postgresBaseUrl ? test : test.skip;

/** The base URL, for inside a postgresTest (which only runs when there is one). */
export function requirePostgresBaseUrl(): string {
  if (!postgresBaseUrl) throw new Error('PCTL_TEST_DATABASE is not set: declare the test with postgresTest');
  return postgresBaseUrl;
}

/**
 * A schema of its own on the cluster, dropped after the test: pass the URL as `database` to
 * several startTestServer calls to have them share one database.
 */
export async function sharedTestDatabase(t: { teardown: (fn: () => Promise<void>) => void }): Promise<string> {
  const url = await freshDatabaseUrl(requirePostgresBaseUrl());
  t.teardown(() => dropDatabase(url));
  return url;
}
