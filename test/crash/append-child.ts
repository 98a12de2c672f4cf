// Child process of the crash test: appends under concurrent load (several writers over several
// streams, with version conflicts and retries) to the SQLite event store at the given path, and prints
// one JSON line per ACKNOWLEDGED append until it is killed. Started by append-crash-run.ts.
import { WrongExpectedVersion } from '../../src/ports/event-store.js';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import type { AppendAck, AppendChildOptions } from './append-crash-run.js';
import { seededRandom } from '../support/seeded-random.js';
import { eventsOfAck } from './append-crash-run.js';

const options = JSON.parse(process.argv[2] ?? '{}') as AppendChildOptions;
const store = await openSqliteEventStore({ path: options.path });
const random = seededRandom(options.seed);

async function writer(index: number): Promise<never> {
  for (let n = 0; ; n++) {
    const stream = `project-${Math.floor(random() * options.streams) + 1}`;
    const commandId = `seed${options.seed}-writer${index}-${n}`;
    const eventCount = random() < 0.25 ? 2 : 1;
    const events = eventsOfAck({ commandId, eventCount });
    for (;;) {
      try {
        const result = await store.append(stream, await store.streamVersion(stream), events);
        const ack: AppendAck = { stream, commandId, eventCount, ...result };
        // Writes to a pipe are synchronous on Linux: once this returns, the parent will read the line.
        process.stdout.write(`${JSON.stringify(ack)}\n`);
        break;
      } catch (error) {
        if (!(error instanceof WrongExpectedVersion)) throw error;
      }
    }
  }
}

/** Readers beside the writers (mixed load): whole streams and pages of the global log, as projectors read. */
async function reader(): Promise<never> {
  for (;;) {
    const stream = `project-${Math.floor(random() * options.streams) + 1}`;
    await store.readStream(stream, { direction: random() < 0.5 ? 'forwards' : 'backwards', limit: 50 });
    await store.readAll({ after: Math.floor(random() * Math.max(1, await store.headPosition())), limit: 300 });
    await new Promise((resolve) => setImmediate(resolve));
  }
}

await Promise.all([
  ...Array.from({ length: options.writers }, (_, index) => writer(index)),
  ...Array.from({ length: options.readers ?? 0 }, () => reader()),
]);
