// Read models after a crash: while a child process appends under concurrent load, this process follows
// the same log file live (as a server beside a CLI would) and projects it; the child is SIGKILLed at a
// seeded moment. The read models built live, incrementally, across the crash must equal the ones
// rebuilt from scratch after the restart, document for document.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../src/infra/event-store/sqlite-event-store.js';
import { CHECKPOINTS, ProjectorRunner } from '../../src/infra/projector/projector-runner.js';
import { createMemoryReadStore } from '../../src/infra/read-store/memory-read-store.js';
import { openSqliteReadStore } from '../../src/infra/read-store/sqlite-read-store.js';
import { storyWritesOf } from '../contract/event-store.fixtures.js';
import { seededRandom } from '../support/seeded-random.js';
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

// The read models on disk across a SIGKILL of the projecting process: each batch's documents and its
// checkpoint commit in one SQLite transaction, so the restarted projector reads only the events after
// the stored checkpoint and still ends equal to a rebuild from scratch.
const projectorChild = fileURLToPath(new URL('./projector-child.js', import.meta.url));

interface ChildLine {
  position?: number;
  caughtUp?: number;
}

/** Runs the projector child; resolves with its lines once it exits (or once `killAt` is reached and it is SIGKILLed). */
function runProjectorChild(events: string, models: string, killAt: number | null): Promise<ChildLine[]> {
  return new Promise((resolve, reject) => {
    const options = { events, models, batchSize: 25, exitWhenCaughtUp: killAt === null };
    const child = spawn(process.execPath, [projectorChild, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: ChildLine[] = [];
    let partial = '';
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const part of parts) lines.push(JSON.parse(part) as ChildLine);
      if (killAt !== null && !killed && lines.some((line) => (line.position ?? 0) >= killAt)) {
        killed = child.kill('SIGKILL');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if ((killAt === null && code === 0) || (killed && signal === 'SIGKILL')) resolve(lines);
      else reject(new Error(`the projector child ended with code ${code}, signal ${signal}: ${stderr}`));
    });
  });
}

async function seededLog(path: string, seed: number, appends: number): Promise<number> {
  const store = await openSqliteEventStore({ path });
  const random = seededRandom(seed);
  try {
    for (let n = 0; n < appends; n += 100) {
      // A hundred appends per turn: committed together (group commit), in a seeded order.
      const turn = Array.from({ length: Math.min(100, appends - n) }, (_, index) => {
        const stream = `project-${Math.floor(random() * 6) + 1}`;
        return store.append(stream, 'any', storyWritesOf(`seed${seed}-${n + index}`, random() < 0.25 ? 2 : 1));
      });
      await Promise.all(turn);
    }
    return await store.headPosition();
  } finally {
    await store.close();
  }
}

async function resumedOnDisk(events: string, models: string) {
  const eventStore = await openSqliteEventStore({ path: events });
  const readStore = openSqliteReadStore({ path: models });
  const checkpoints = await readStore.collection(CHECKPOINTS).all();
  const runner = new ProjectorRunner({ eventStore, readStore, projections });
  const report = await runner.start();
  const models_ = await readModels(runner);
  await runner.stop();
  await readStore.close();
  return { checkpoints: checkpoints.map((doc) => doc['position'] as number), report, models: models_, eventStore };
}

describe('read models on disk across a SIGKILL of the projecting process', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-crash-disk-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const seed of [3, 11, 23]) {
    it(`resumes from the checkpoint committed with the documents and equals a rebuild from scratch (seed ${seed})`, async () => {
      const events = join(dir, 'events.sqlite');
      const models = join(dir, 'readmodels.sqlite');
      const head = await seededLog(events, seed, 1200);
      const killAt = Math.floor(head * (0.2 + seededRandom(seed)() * 0.5));
      const lines = await runProjectorChild(events, models, killAt);
      const lastSeen = Math.max(...lines.map((line) => line.position ?? 0));
      expect(lines.some((line) => line.caughtUp !== undefined), 'killed before catching up').to.equal(false);

      const resumed = await resumedOnDisk(events, models);
      try {
        const checkpoint = Math.min(...resumed.checkpoints);
        expect(checkpoint).to.be.at.least(lastSeen).and.below(head);
        expect(resumed.report.eventsRead).to.equal(head - checkpoint);
        const scratch = await projectorAt(resumed.eventStore);
        try {
          expect(resumed.models).to.deep.equal(await readModels(scratch));
        } finally {
          await scratch.stop();
        }
      } finally {
        await resumed.eventStore.close();
      }
    });
  }

  it('reads nothing again after a clean stop', async () => {
    const events = join(dir, 'events.sqlite');
    const models = join(dir, 'readmodels.sqlite');
    const head = await seededLog(events, 41, 300);
    const lines = await runProjectorChild(events, models, null);
    expect(lines.at(-1)).to.include({ caughtUp: head });
    const resumed = await resumedOnDisk(events, models);
    try {
      expect(resumed.checkpoints).to.deep.equal(projections.map(() => head));
      expect(resumed.report.eventsRead).to.equal(0);
      expect(resumed.models['stories']!.length).to.be.greaterThan(0);
    } finally {
      await resumed.eventStore.close();
    }
  });
});
