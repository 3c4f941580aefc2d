// GET /healthz on PostgreSQL: 503 while serve cannot finish starting, 200 once it has, and 503
// when the database goes away. Only the postgres leg runs this directory; the "database down"
// test stops a throwaway cluster of its own (the leg's cluster serves the other tests).
import test from 'ava';
import net from 'node:net';
import pg from 'pg';
import { startPostgresCluster } from '../../scripts/pg-cluster.mjs';
import { sharedTestDatabase } from '../helpers/postgres.js';
import { request, startTestServer } from '../helpers/serve.js';

/** A port nothing listens on now (serve is started on it by number, to be probed before it has finished starting). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** GET /healthz, once serve's port accepts connections (refused until it listens). */
async function probeOnceListening(url: string): Promise<Awaited<ReturnType<typeof request>>> {
  for (;;) {
    try {
      return await request(url, 'GET', '/healthz');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

test.serial('503 "starting" until serve has started (its first write waits on a lock), then 200', async (t) => {
  const database = await sharedTestDatabase(t);
  // A first serve makes the schema and the organization.
  await (await startTestServer({ database })).dispose();

  // Holding the write lock: a serve that must write at its start (--public-url: the issuer
  // follows it) listens, then waits.
  const holder = new pg.Client({ connectionString: database });
  await holder.connect();
  t.teardown(() => holder.end());
  await holder.query('BEGIN; LOCK TABLE changes IN EXCLUSIVE MODE');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const starting = startTestServer({ database, port, publicUrl: 'http://pctl.test:8700' });
  try {
    const early = await probeOnceListening(url);
    t.is(early.status, 503);
    t.like(early.json, { status: 'starting', store: { engine: 'postgres', ready: false } });
    t.is(early.headers.get('retry-after'), '1');
  } finally {
    await holder.query('COMMIT');
  }
  const srv = await starting;
  t.teardown(() => srv.dispose());
  const got = await request(url, 'GET', '/healthz');
  t.is(got.status, 200);
  t.like(got.json, { status: 'ok', store: { engine: 'postgres', ready: true } });
});

test.serial('503 "unavailable" when PostgreSQL is down, with what failed', async (t) => {
  const cluster = await startPostgresCluster();
  if (!cluster.available) throw new Error(`no PostgreSQL cluster: ${cluster.reason}`);
  t.teardown(() => cluster.stop());
  const srv = await startTestServer({ database: cluster.url });
  t.teardown(() => srv.dispose());
  t.like((await request(srv.url, 'GET', '/healthz')).json, { status: 'ok', store: { engine: 'postgres', ready: true } });

  await cluster.stop();
  const down = await request(srv.url, 'GET', '/healthz');
  t.is(down.status, 503);
  t.like(down.json, { status: 'unavailable', store: { engine: 'postgres', ready: false } });
  t.regex(down.json.store.error, /database/);
  // The API says the same to a caller.
  t.is((await srv.call('GET', '/iam/v2/groups')).status, 503);
});
