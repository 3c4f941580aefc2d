// The SQLite binding, chosen by Node's major version. better-sqlite3 12 wraps its objects
// with node::ObjectWrap, and on Node 24.19+ any garbage collection of a Database or
// Statement (mid-run or at exit) aborts the process (`Assertion failed: (env) != nullptr`
// in RemoveEnvironmentCleanupHook). better-sqlite3 13 is built on N-API and does not, but
// it requires Node >= 22 and crashes on Node 20. Both have the same API, so Node 20 gets
// 12 (installed as `better-sqlite3-v12`) and every later Node gets 13. Drop 12 with Node 20.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

const sqliteBinding = nodeMajor >= 22 ? 'better-sqlite3' : 'better-sqlite3-v12';
const Database = require(sqliteBinding) as typeof BetterSqlite3;
export default Database;
