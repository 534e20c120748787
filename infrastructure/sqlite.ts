import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

export type SqliteDatabase = BetterSqlite3.Database;

/**
 * The better-sqlite3 driver for this Node: release 13 (Node-API 10, prebuilt, no build step) on Node
 * 22.14+ and 24, release 12 (built from source at install) on Node 20, whose Node-API 9 cannot load
 * 13. Release 12 on Node 24 aborts the process (`Assertion failed: (env) != nullptr` in
 * `node::RemoveEnvironmentCleanupHook`): its statements, iterators and databases are
 * `node::ObjectWrap`s, whose destructor on Node 24 needs a current environment, which a garbage
 * collection outside any JavaScript context does not have. Release 13 wraps them with Node-API
 * instead. Both have the same API; the types are release 12's.
 */
const require = createRequire(import.meta.url);
export const nodeApiVersion = Number(process.versions.napi);
export const sqliteDriverPackage = nodeApiVersion >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3';
export const Database: typeof BetterSqlite3 = require(sqliteDriverPackage);

/**
 * Opens a SQLite file tuned for an append-heavy log: WAL (readers never block the writer),
 * synchronous=NORMAL (a committed transaction survives a process crash or kill -9; only an
 * OS crash or power loss can drop the last commits — set SQLITE_SYNCHRONOUS=FULL to close
 * that too), and a busy timeout so several processes can share one file.
 */
export const openSqlite = (file: string): SqliteDatabase => {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${process.env.SQLITE_SYNCHRONOUS === 'FULL' ? 'FULL' : 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
};
