// The PostgreSQL test harness itself (scripts/pg-cluster.mjs): a throwaway cluster starts and
// stops leaving nothing running, and each fresh database URL is a schema of its own.
import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { dropDatabase, findPostgresBinaries, freshDatabaseUrl, startPostgresCluster } from '../scripts/pg-cluster.mjs';

// Without PostgreSQL the test is skipped (ava shows it), unless CI requires it.
const canRun = 'bindir' in findPostgresBinaries() || process.env.PCTL_REQUIRE_POSTGRES === '1';
const clusterTest = canRun ? test : test.skip;

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** A process that has not exited; a zombie has (its parent, not ours, reaps it some time). */
const isRunning = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

clusterTest('a throwaway cluster: fresh schema URLs are isolated; stop leaves no server and no dir', async (t) => {
  const cluster = await startPostgresCluster({ log: (line) => t.log(line) });
  if (!cluster.available) return t.fail(cluster.reason);
  t.teardown(() => cluster.stop());
  t.regex(cluster.url, /^postgres:\/\/pctl@127\.0\.0\.1:\d+\/postgres$/);
  t.deepEqual(await query(cluster.url, 'SHOW fsync'), [{ fsync: 'on' }]);

  const a = await freshDatabaseUrl(cluster.url);
  const b = await freshDatabaseUrl(cluster.url);
  const schemaOf = (url: string) => /search_path%3D(pctl_t_[0-9a-f]+)$/.exec(url)![1]!;
  t.deepEqual(await query(a, 'SHOW search_path'), [{ search_path: schemaOf(a) }]);
  await query(a, 'CREATE TABLE widgets (id int)');
  t.deepEqual(await query(a, 'SELECT count(*)::int AS n FROM widgets'), [{ n: 0 }]);
  await t.throwsAsync(query(b, 'SELECT * FROM widgets'), { message: /relation "widgets" does not exist/ });

  await dropDatabase(a);
  await dropDatabase(b);
  t.deepEqual(await query(cluster.url, "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname LIKE 'pctl\\_t\\_%'"), [{ n: 0 }]);

  const postmasterPid = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  t.true(isRunning(postmasterPid));
  await cluster.stop();
  t.false(isRunning(postmasterPid));
  t.false(existsSync(cluster.dir));
});

clusterTest('a whole database per server, the other kind: its own catalog, dropped with its connections', async (t) => {
  const cluster = await startPostgresCluster();
  if (!cluster.available) return t.fail(cluster.reason);
  t.teardown(() => cluster.stop());
  const url = await freshDatabaseUrl(cluster.url, { kind: 'database' });
  const name = new URL(url).pathname.slice(1);
  t.deepEqual(await query(url, 'SELECT current_database() AS db'), [{ db: name }]);
  const open = new pg.Client({ connectionString: url });
  await open.connect();
  open.on('error', () => {}); // DROP … WITH (FORCE) ends this connection.
  await dropDatabase(url);
  t.deepEqual(await query(cluster.url, `SELECT count(*)::int AS n FROM pg_database WHERE datname = '${name}'`), [{ n: 0 }]);
  await open.end().catch(() => {});
});
