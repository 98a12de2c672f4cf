// Child process of the notifications crash test: runs the notifications reaction (the server's own,
// over the SQLite read store and reactions.sqlite, as `serve` wires them) behind the log at `dir`,
// printing the last position of every batch it handled. With `untilCaughtUp` it stops cleanly once the
// log's head is handled; otherwise it runs until killed.
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { ReactionRunner } from '../../src/infra/reaction/reaction-runner.js';
import { openSqliteReactionCheckpoints } from '../../src/infra/reaction/sqlite-reaction-checkpoints.js';
import { openSqliteReadStore } from '../../src/infra/read-store/sqlite-read-store.js';
import { notificationsReaction } from '../../src/reactions/notifications.js';
import type { Reaction } from '../../src/reactions/reaction.js';

export interface NotificationsChildOptions {
  /** events.sqlite is read from here. */
  log: string;
  /** readmodels.sqlite and reactions.sqlite are written here. */
  stores: string;
  untilCaughtUp: boolean;
}

const options = JSON.parse(process.argv[2]!) as NotificationsChildOptions;
const eventStore = await openSqliteEventStore({ path: `${options.log}/events.sqlite` });
const readStore = openSqliteReadStore({ path: `${options.stores}/readmodels.sqlite` });
const checkpoints = openSqliteReactionCheckpoints(`${options.stores}/reactions.sqlite`);
const notifications = notificationsReaction({ read: (name) => readStore.collection(name), own: readStore });
const announced: Reaction = {
  ...notifications,
  async handle(events) {
    await notifications.handle(events);
    process.stdout.write(`${events.at(-1)!.position}\n`);
    await new Promise((resolve) => setImmediate(resolve)); // let the parent's SIGKILL land between batches
  },
};
const runner = new ReactionRunner({ eventStore, checkpoints, reactions: [announced], batchSize: 8, gatherMs: 0 });
runner.start();
if (options.untilCaughtUp) {
  await runner.waitFor(await eventStore.headPosition());
  await runner.stop();
  await checkpoints.close();
  await readStore.close();
  await eventStore.close();
}
