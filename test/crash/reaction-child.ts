// The child process of the reaction crash test: runs the reaction runner over the SQLite log with one
// reaction whose effect is a row keyed by the event id in a SQLite file of its own (idempotent: a
// redelivered event leaves the row as it was) and whose every delivery is logged with the run number.
// Prints one line per handled event; with `untilCaughtUp` it exits once the log's head is handled.
import Database from 'better-sqlite3';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { ReactionRunner } from '../../src/infra/reaction/reaction-runner.js';
import { openSqliteReactionCheckpoints } from '../../src/infra/reaction/sqlite-reaction-checkpoints.js';
import type { Reaction } from '../../src/reactions/reaction.js';

export interface ReactionChildOptions {
  dir: string;
  run: number;
  untilCaughtUp: boolean;
  /** Events read per batch: the checkpoint is saved once per batch. */
  batchSize: number;
}

const options = JSON.parse(process.argv[2]!) as ReactionChildOptions;
const effects = new Database(`${options.dir}/effects.sqlite`);
effects.pragma('journal_mode = WAL');
effects.pragma('synchronous = FULL');
effects.exec('CREATE TABLE IF NOT EXISTS effects (event_id TEXT PRIMARY KEY, position INTEGER NOT NULL)');
effects.exec('CREATE TABLE IF NOT EXISTS deliveries (run INTEGER NOT NULL, position INTEGER NOT NULL)');
const deliver = effects.prepare('INSERT INTO deliveries (run, position) VALUES (?, ?)');
const apply = effects.prepare('INSERT OR IGNORE INTO effects (event_id, position) VALUES (?, ?)');

const reaction: Reaction = {
  name: 'crash-test-effects',
  async handle(events) {
    for (const event of events) {
      deliver.run(options.run, event.position);
      apply.run(event.id, event.position);
      process.stdout.write(`${event.position}\n`);
      await new Promise((resolve) => setImmediate(resolve)); // let the parent's SIGKILL land mid-way
    }
  },
};

const eventStore = await openSqliteEventStore({ path: `${options.dir}/events.sqlite` });
const checkpoints = openSqliteReactionCheckpoints(`${options.dir}/reactions.sqlite`);
const runner = new ReactionRunner({ eventStore, checkpoints, reactions: [reaction], batchSize: options.batchSize });
runner.start();
if (options.untilCaughtUp) {
  await runner.waitFor(await eventStore.headPosition());
  await runner.stop();
  await checkpoints.close();
  await eventStore.close();
  effects.close();
}
