// Read models after a crash: while a child process appends under concurrent load, this process follows
// the same log file live (as a server beside a CLI would) and projects it; the child is SIGKILLed at a
// seeded moment. The read models built live, incrementally, across the crash must equal the ones
// rebuilt from scratch after the restart, document for document.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { ProjectorRunner } from '../../src/infra/projector/projector-runner.js';
import { createMemoryReadStore } from '../../src/infra/read-store/memory-read-store.js';
import type { Doc } from '../../src/ports/read-store.js';
import { projections } from '../../src/projections/registry.js';
import type { EventStore } from '../../src/ports/event-store.js';
import { runAppendChildUntilKilled } from './append-crash-run.js';

async function readModels(runner: ProjectorRunner): Promise<Record<string, Doc[]>> {
  const models: Record<string, Doc[]> = {};
  for (const projection of projections) {
    for (const { name } of projection.collections) models[name] = await runner.collection(name).all();
  }
  return models;
}

async function projectorAt(eventStore: EventStore): Promise<ProjectorRunner> {
  const runner = new ProjectorRunner({ eventStore, readStore: createMemoryReadStore(), projections });
  await runner.start();
  return runner;
}

describe('read models across a SIGKILL of the appending process', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-crash-models-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const seed of [5, 17, 29]) {
    it(`projected live, they equal a rebuild from scratch after restart (seed ${seed})`, async () => {
      const path = join(dir, 'events.sqlite');
      const follower = await openSqliteEventStore({ path, pollIntervalMs: 10 });
      const live = await projectorAt(follower);
      try {
        const acks = await runAppendChildUntilKilled({ path, seed, streams: 4, writers: 8 });
        const head = await follower.headPosition();
        expect(head).to.be.at.least(Math.max(...acks.map((ack) => ack.position)));
        await live.waitFor(head);

        const restarted = await openSqliteEventStore({ path });
        const rebuilt = await projectorAt(restarted);
        try {
          const fromScratch = await readModels(rebuilt);
          expect(fromScratch['stories']!.length).to.be.greaterThan(0);
          expect(await readModels(live)).to.deep.equal(fromScratch);
        } finally {
          await rebuilt.stop();
          await restarted.close();
        }
      } finally {
        await live.stop();
        await follower.close();
      }
    });
  }
});
