import type { SqliteDatabase } from '../sqlite.ts';

/** The embedded bus's own table: each consumer group's offset, a position in the event log. */
export const OFFSETS_SCHEMA = `
CREATE TABLE IF NOT EXISTS log_offsets (
  grp      TEXT PRIMARY KEY,
  position INTEGER NOT NULL
);
`;

const hasTable = (db: SqliteDatabase, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/**
 * Upgrades a `bus.db` written by the copying bus (a `messages` table the relay filled, and
 * `group_offsets` counted in its own sequence numbers) to log offsets, once, then drops the copy.
 *
 * A group's new offset is the position just before the first message it had not consumed yet (in
 * any topic: the lowest position among the messages after its offset), so nothing it still had to
 * handle is skipped; at most some of what it had handled comes again (at-least-once). A group that
 * had consumed every message gets the relay's checkpoint: every event up to it was published and
 * consumed, and the events after it were never published, so the group gets them now. Without a
 * relay checkpoint nothing was ever published: the group starts at the beginning of the log.
 */
export const migrateCopyingBus = async (db: SqliteDatabase, relayCheckpoint?: () => Promise<bigint | null>): Promise<void> => {
  const hasMessages = hasTable(db, 'messages');
  const hasGroups = hasTable(db, 'group_offsets');
  if (!hasMessages && !hasGroups) return;
  const relay = (await relayCheckpoint?.()) ?? null;
  const groups = hasGroups ? (db.prepare('SELECT grp, seq FROM group_offsets').all() as { grp: string; seq: bigint | number }[]) : [];
  const firstUnconsumed = hasMessages
    ? db.prepare<[bigint | number], { position: bigint | number | null }>(
        "SELECT min(CAST(json_extract(value, '$.position') AS INTEGER)) AS position FROM messages WHERE seq > ? AND json_valid(value)",
      )
    : null;
  db.transaction(() => {
    db.exec(OFFSETS_SCHEMA);
    const insert = db.prepare('INSERT OR IGNORE INTO log_offsets (grp, position) VALUES (?, ?)');
    for (const { grp, seq } of groups) {
      const first = firstUnconsumed?.get(seq)?.position ?? null;
      let position = first !== null ? BigInt(first) - 1n : (relay ?? 0n);
      if (relay !== null && position > relay) position = relay;
      if (position < 0n) position = 0n;
      insert.run(grp, position);
    }
    db.exec('DROP TABLE IF EXISTS messages; DROP TABLE IF EXISTS group_offsets;');
  })();
  // Give the copy's pages back to the file system.
  db.exec('VACUUM');
};
