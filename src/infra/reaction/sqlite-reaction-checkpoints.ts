// Reaction checkpoints in a small SQLite file of their own (`reactions.sqlite`). A checkpoint survives a
// crash of the process (WAL, committed before the worker moves on); with `synchronous = NORMAL` a power
// loss may take back the last few saves, which only delivers those events again: delivery is at least
// once and reactions are idempotent, so a checkpoint is not worth an fsync per batch on the event loop
// that serves the writes (the event log itself keeps `synchronous = FULL`).
import Database from 'better-sqlite3';
import type { ReactionCheckpoints } from '../../ports/reaction-checkpoints.js';

export function openSqliteReactionCheckpoints(path: string): ReactionCheckpoints {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.exec('CREATE TABLE IF NOT EXISTS reaction_checkpoints (reaction TEXT PRIMARY KEY, position INTEGER NOT NULL)');
  const read = db.prepare<[string], { position: number }>('SELECT position FROM reaction_checkpoints WHERE reaction = ?');
  const write = db.prepare<[string, number]>(
    'INSERT INTO reaction_checkpoints (reaction, position) VALUES (?, ?) ON CONFLICT (reaction) DO UPDATE SET position = excluded.position',
  );
  return {
    async position(reaction) {
      return read.get(reaction)?.position ?? 0;
    },
    async save(reaction, position) {
      write.run(reaction, position);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
