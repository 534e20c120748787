import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

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
