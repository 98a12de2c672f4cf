// A reaction survives SIGKILL: a child process running the reaction runner is killed mid-way through
// the log; a second run resumes from the stored checkpoint (it does not start over), redelivers at most
// the batch that was in hand (the checkpoint is saved once per batch), and leaves exactly one effect per
// event (effects are keyed by event id).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { appendOf } from '../contract/event-store.fixtures.js';
import { seededRandom } from '../support/seeded-random.js';
import { runPositionReportingChild } from './position-reporting-child.js';
import type { ReactionChildOptions } from './reaction-child.js';

const childScript = fileURLToPath(new URL('./reaction-child.js', import.meta.url));
const EVENTS = 300;
const BATCH = 16;

/** Runs the child; kills it with SIGKILL once it reported `killAfter` handled events, or lets it finish. */
function runChild(options: ReactionChildOptions, killAfter: number | null): Promise<number[]> {
  return runPositionReportingChild(childScript, options, killAfter);
}

describe('reactions survive SIGKILL', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-reaction-crash-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const seed of [5, 17]) {
    it(`resumes from its checkpoint without duplicate effects (seed ${seed})`, async () => {
      const store = await openSqliteEventStore({ path: join(dir, 'events.sqlite') });
      for (let i = 0; i < EVENTS; i++) await store.append(`project-${(i % 4) + 1}`, 'any', appendOf(`crash-${seed}-${i}`));
      const ids = (await store.readAll()).map((event) => event.id);
      await store.close();

      const killAfter = 20 + Math.floor(seededRandom(seed)() * 200);
      const first = await runChild({ dir, run: 1, untilCaughtUp: false, batchSize: BATCH }, killAfter);
      expect(first.length).to.be.at.least(killAfter).and.below(EVENTS);
      await runChild({ dir, run: 2, untilCaughtUp: true, batchSize: BATCH }, null);

      const effects = new Database(join(dir, 'effects.sqlite'), { readonly: true });
      try {
        const rows = effects.prepare('SELECT event_id FROM effects ORDER BY position').all() as Array<{ event_id: string }>;
        expect(rows.map((row) => row.event_id)).to.deep.equal(ids);
        const delivered = (run: number) =>
          (effects.prepare('SELECT position FROM deliveries WHERE run = ? ORDER BY rowid').all(run) as Array<{ position: number }>).map(
            (row) => row.position,
          );
        const [run1, run2] = [delivered(1), delivered(2)];
        const lastOfRun1 = run1.at(-1)!;
        // The second run starts in the batch in hand when the first was killed (or at the next one), not at 1.
        expect(run2[0]).to.be.within(lastOfRun1 - BATCH + 1, lastOfRun1 + 1);
        expect(run2).to.deep.equal(Array.from({ length: EVENTS - run2[0]! + 1 }, (_, i) => run2[0]! + i));
        expect(run1.length + run2.length).to.be.at.most(EVENTS + BATCH);
      } finally {
        effects.close();
      }
    });
  }
});
