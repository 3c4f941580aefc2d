// Crash safety: 1,000 group creates from 20 keep-alive clients against a real `pctl serve`
// child, `kill -9` once K creates have been acknowledged, restart on the same data dir.
// Every create that got a 200 must be there, nothing may be half-written, and the restarted
// server must take over the stale lock and start cleanly. Repeated at several kill points.
import test from 'ava';
import Database from '../../src/server/store/sqlite.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, G, cleanup, killHard, listAll, parentOf, startServe, stopServe, tempDir } from './helpers.js';

const TOTAL = 1000;
const CLIENTS = 20;
const KILL_POINTS = [100, 400, 800];

test.after.always(cleanup);

interface Created { uid: string; name: string; parent: string }

for (const killAt of KILL_POINTS) {
  test.serial(`kill -9 after ${killAt} acknowledged creates: no acknowledged write is lost`, async (t) => {
    const dataDir = tempDir('pctl-stress-crash-');
    const first = await startServe(dataDir);
    const c1 = new Client(first.url, first.token, CLIENTS);
    t.teardown(() => c1.close().catch(() => {}));
    const org = (await c1.req('GET', `${G}?page_size=1`)).json.groups[0].uid as string;

    const acked: Created[] = [];
    const inFlightAtKill = new Set<string>(); // names whose fate is unknown: sent, no answer
    const otherStatuses: string[] = [];
    let next = 0;
    let killed = false;
    let killing: Promise<void> | undefined;
    const t0 = performance.now();

    // Parents are the organization or an already acknowledged group, so the data set is a
    // tree several levels deep and "every group's parent exists" means something.
    const worker = async () => {
      while (!killed && next < TOTAL) {
        const i = next++;
        const name = `crash-${killAt}-${i}`;
        const parent = acked.length && i % 3 !== 0 ? acked[(i * 7919) % acked.length]!.uid : org;
        try {
          const res = await c1.req('POST', G, { parent, group: { name, description: `create #${i}` } });
          if (res.status === 200) {
            acked.push({ uid: res.json.uid, name, parent });
            if (acked.length === killAt && !killed) {
              killed = true;
              killing = killHard(first.child);
            }
          } else {
            otherStatuses.push(`${res.status} ${res.text.slice(0, 200)}`);
          }
        } catch {
          if (!killed) throw new Error(`create ${name} failed before the kill`);
          inFlightAtKill.add(name);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, worker));
    await killing;
    const beforeKillMs = performance.now() - t0;
    t.deepEqual(otherStatuses, [], 'every create before the kill succeeded');
    t.true(killed, 'the server was killed mid-run');
    const exit = await first.exited;
    t.is(exit.signal, 'SIGKILL');
    await c1.close();

    // serve.pid still names the dead pid, but the OS released its lock: the restart just works.
    t.true(existsSync(join(dataDir, 'serve.pid')), 'kill -9 left the pid file behind');
    t.is(Number.parseInt(readFileSync(join(dataDir, 'serve.pid'), 'utf8'), 10), first.pid);

    const restartT0 = performance.now();
    const second = await startServe(dataDir);
    const restartMs = performance.now() - restartT0;
    const c2 = new Client(second.url, second.token, CLIENTS);
    t.teardown(() => c2.close().catch(() => {}));

    // Every acknowledged create is there, by uid, with what was sent.
    let present = 0;
    const missing: string[] = [];
    await Promise.all(Array.from({ length: CLIENTS }, async (_, w) => {
      for (let k = w; k < acked.length; k += CLIENTS) {
        const a = acked[k]!;
        const res = await c2.req('GET', `${G}/${a.uid}`);
        if (res.status === 200 && res.json.name === a.name && res.json.description === `create #${a.name.split('-')[2]}`) present++;
        else missing.push(`${a.uid} (${a.name}): ${res.status}`);
      }
    }));
    const lost = acked.length - present;

    // Nothing half-written: every group's parent exists; totalCount equals what paging returns
    // (and is the same on every page); every group carries complete fields; no duplicates.
    const { items, totals, pages } = await listAll(c2, G, 'groups', {}, 97);
    const byUid = new Map(items.map((g) => [g.uid as string, g]));
    t.is(byUid.size, items.length, 'no uid appears twice across pages');
    t.deepEqual(totals, [String(items.length)], 'totalCount equals the number of groups paged through');
    const orphans = items.filter((g) => parentOf(g.uid as string) !== undefined && !byUid.has(parentOf(g.uid as string)!));
    t.deepEqual(orphans.map((g) => g.uid), [], 'every group has an existing parent');
    const incomplete = items.filter((g) => typeof g.name !== 'string' || typeof g.createTime !== 'string' || typeof g.updateTime !== 'string' || typeof g.description !== 'string');
    t.deepEqual(incomplete, [], 'every group is complete');
    const ours = items.filter((g) => String(g.name).startsWith(`crash-${killAt}-`));
    const landedInFlight = ours.filter((g) => inFlightAtKill.has(g.name as string)).length;
    t.is(ours.length, acked.length + landedInFlight, 'only acknowledged creates and creates in flight at the kill are present');

    // The database itself is sound after WAL recovery.
    const db = new Database(join(dataDir, 'pctl.db'), { readonly: true, fileMustExist: true });
    const integrity = db.pragma('integrity_check', { simple: true });
    db.close();
    t.is(integrity, 'ok');

    // The restarted server works: finish the run on it.
    const resumeFrom = next;
    const resumed: Promise<number>[] = [];
    for (let w = 0; w < CLIENTS; w++) {
      resumed.push((async () => {
        let n = 0;
        for (let i = resumeFrom + w; i < TOTAL; i += CLIENTS) {
          const res = await c2.req('POST', G, { parent: org, group: { name: `crash-${killAt}-${i}`, description: `create #${i}` } });
          if (res.status !== 200) throw new Error(`create after restart: ${res.status} ${res.text}`);
          n++;
        }
        return n;
      })());
    }
    const resumedCount = (await Promise.all(resumed)).reduce((a, b) => a + b, 0);
    const after = await listAll(c2, G, 'groups', { name: `crash-${killAt}-${TOTAL - 1}` });
    if (resumeFrom < TOTAL) t.is(after.items.length, 1, 'the last create of the run landed after the restart');
    const final = await c2.req('GET', `${G}?page_size=1`);
    t.is(Number(final.json.totalCount), items.length + resumedCount);

    t.notRegex(second.stderr(), /internal error|Error:|warn/i, 'the restart logged no error');
    const stopped = await stopServe(second);
    t.is(stopped.code, 0, 'the restarted server shuts down cleanly on SIGTERM');
    t.false(existsSync(join(dataDir, 'serve.pid')), 'a clean shutdown removes the pid file');

    t.is(lost, 0, `lost acknowledged creates: ${missing.slice(0, 5).join('; ')}`);
    t.log(`kill point ${killAt}: acknowledged ${acked.length}, present ${present}, lost ${lost}; in flight at the kill ${inFlightAtKill.size} (landed ${landedInFlight}); ` +
      `${Math.round((acked.length / beforeKillMs) * 1000)} creates/s before the kill; restart ${Math.round(restartMs)} ms; ` +
      `${items.length} groups over ${pages} pages after restart; ${resumedCount} creates after restart`);
  });
}
