// The disk's own pace for a WAL commit, beside the bench's raw SQLite commits: N KB written over
// a preallocated file (as SQLite reuses its WAL after a checkpoint: no size change to journal),
// then fdatasync, 2,000 times each, in the system's temp dir (the bench's data dirs are there).
//   node bench/disk-flush.js
import { openSync, writeSync, fdatasyncSync, closeSync, rmSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
const dir = mkdtempSync(join(tmpdir(), 'pctl-bench-fsync-'));
const fd = openSync(join(dir, 'wal'), 'w+');
writeSync(fd, Buffer.alloc(8 << 20)); fdatasyncSync(fd);
for (const kb of [4, 8, 40, 80]) {
  const buf = Buffer.alloc(kb * 1024, 1);
  let at = 0;
  const once = () => { writeSync(fd, buf, 0, buf.length, at); at = (at + buf.length) % ((8 << 20) - buf.length); fdatasyncSync(fd); };
  for (let i = 0; i < 200; i++) once();
  const n = 2000; const t0 = performance.now();
  for (let i = 0; i < n; i++) once();
  const ms = (performance.now() - t0) / n;
  console.log(`${kb} KB over a preallocated file + fdatasync: ${(ms * 1000).toFixed(0)} us each (${Math.round(1000 / ms)}/s)`);
}
closeSync(fd); rmSync(dir, { recursive: true });
