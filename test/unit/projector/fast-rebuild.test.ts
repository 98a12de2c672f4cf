// The offline rebuild (a fresh generation folded in memory, each final document written once) against
// the live build (every batch applied to the read store as it comes): for a scripted history written
// through the HTTP API, every collection of every projection holds the same documents, `_pos` included,
// whether the working set keeps everything in memory or moves documents out and back at every turn,
// for a rebuild of all projections and of some (`--only`), in this thread and in worker threads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore, type SqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';
import { balancedGroups, sqliteParallelFold, type FoldPlan, type ParallelFold } from '../../../src/infra/projector/parallel-fold.js';
import type { Projection } from '../../../src/projections/projection.js';
import { CHECKPOINTS, ProjectorRunner, ProjectorStopped, checkpointId } from '../../../src/infra/projector/projector-runner.js';
import { openSqliteReadStore } from '../../../src/infra/read-store/sqlite-read-store.js';
import type { Log } from '../../../src/infra/log.js';
import type { ReadStore } from '../../../src/ports/read-store.js';
import { projections, rebuildCosts } from '../../../src/projections/registry.js';
import { storylineApp, type PersonHandle, type StorylineApp } from '../../api/support/storyline-app.js';
import { seededRandom } from '../../support/seeded-random.js';

const DAY = 24 * 3600 * 1000;
const LABELS = ['backend', 'frontend', 'ops', 'docs'];
const WORDS = ['export', 'report', 'Löwe', 'billing', 'search', 'Москва', 'csv', 'webhook'];

/** A history touching every projection: stories through their states (accepted ones too), labels, tasks, comments, deletes. */
async function writeHistory(app: StorylineApp, owner: PersonHandle, seed: number, writes: number): Promise<void> {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const words = (count: number) => Array.from({ length: count }, () => pick(WORDS)).join(' ');
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await app.api(method, path, { as: owner, ...(body === undefined ? {} : { body }) });
    if (res.status !== 200 && res.status !== 204) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.json as Record<string, unknown>;
  };
  const projects = await app.api('GET', '/projects', { as: owner });
  let projectIds = (projects.json as Array<{ id: number }>).map((project) => project.id);
  if (projectIds.length === 0) {
    const first = await ok('POST', '/projects', { name: 'Rebuilt one', new_account_name: 'Rebuild company' });
    const second = await ok('POST', '/projects', { name: 'Rebuilt two', account_id: first['account_id'] });
    projectIds = [first['id'] as number, second['id'] as number];
  }
  const stories = new Map<number, number[]>(projectIds.map((id) => [id, []]));
  for (let i = 0; i < writes; i++) {
    app.clock.now += Math.floor(random() * DAY);
    const project = pick(projectIds);
    const own = stories.get(project)!;
    const roll = random();
    if (own.length === 0 || roll < 0.3) {
      const story = await ok('POST', `/projects/${project}/stories`, {
        name: `${words(3)} ${i}`,
        description: words(12),
        story_type: 'feature',
        estimate: 1 + Math.floor(random() * 3),
        labels: [pick(LABELS)],
      });
      own.push(story['id'] as number);
    } else if (roll < 0.65) {
      const state = pick(['started', 'finished', 'delivered', 'accepted', 'rejected', 'unstarted'] as const);
      await ok('PUT', `/projects/${project}/stories/${pick(own)}`, {
        current_state: state,
        ...(random() < 0.5 ? { name: `${words(4)} renamed ${i}` } : { description: words(8) }),
        ...(random() < 0.3 ? { labels: [pick(LABELS), pick(LABELS)] } : {}),
      });
    } else if (roll < 0.8) {
      await ok('POST', `/projects/${project}/stories/${pick(own)}/tasks`, { description: words(5), complete: random() < 0.5 });
    } else if (roll < 0.92) {
      await ok('POST', `/projects/${project}/stories/${pick(own)}/comments`, { text: words(6) });
    } else {
      const doomed = own.splice(Math.floor(random() * own.length), 1)[0]!;
      await ok('DELETE', `/projects/${project}/stories/${doomed}`);
    }
  }
}

/** Every collection of every projection, as its documents in id order (one string per collection). */
async function dumpOf(runner: ProjectorRunner): Promise<Map<string, string>> {
  const dump = new Map<string, string>();
  for (const projection of projections) {
    for (const { name } of projection.collections) dump.set(name, JSON.stringify(await runner.collection(name).all()));
  }
  return dump;
}

function expectSameDocuments(actual: Map<string, string>, expected: Map<string, string>): void {
  expect([...actual.keys()]).to.deep.equal([...expected.keys()]);
  for (const [name, docs] of expected) expect(actual.get(name), `collection ${name}`).to.equal(docs);
}

/** Two starts of runners from `folding`: the first folds the log from position 0, the next reads nothing; both hold `reference`'s documents. */
async function expectBuiltOnceAtStart(folding: () => ProjectorRunner, reference: ProjectorRunner, head: number): Promise<void> {
  for (const eventsRead of [head, 0]) {
    const runner = folding();
    try {
      expect(await runner.start()).to.include({ eventsRead, position: head });
      expectSameDocuments(await dumpOf(runner), await dumpOf(reference));
    } finally {
      await runner.stop();
    }
  }
}

/** A log that keeps what the rebuild says about its working set. */
function workingSetLog(): { log: Log; moved: Array<Record<string, unknown>> } {
  const moved: Array<Record<string, unknown>> = [];
  const quiet = () => undefined;
  return {
    moved,
    log: {
      debug: quiet,
      warn: quiet,
      error: quiet,
      info(message, details) {
        if (message === 'rebuild working set written') moved.push(details ?? {});
      },
    },
  };
}

describe('offline rebuild (working set folded in memory)', function () {
  this.timeout(60_000);
  let app: StorylineApp;
  let owner: PersonHandle;

  before(async () => {
    app = await storylineApp();
    owner = await app.person('Owner');
    await writeHistory(app, owner, 20261123, 160);
  });
  after(async () => app.close());

  const budgets = [
    { label: 'moving documents out and back at every turn (a 1-byte heap budget)', heap: 1 },
    { label: 'keeping the whole working set in memory', heap: 1024 ** 4 },
  ];
  for (const { label, heap } of budgets) {
    it(`gives every collection the documents of the live build, ${label}, for all projections and for some`, async () => {
      const store: ReadStore = openSqliteReadStore({ path: ':memory:', cacheBytes: 64 * 1024 });
      const { log, moved } = workingSetLog();
      const runner = new ProjectorRunner({ eventStore: app.storyline.eventStore, readStore: store, projections, batchSize: 3, rebuildHeapBytes: heap, foldRebuilds: true, log });
      try {
        await runner.start();
        const live = await dumpOf(runner);
        const head = await app.storyline.eventStore.headPosition();

        const reports = await runner.rebuildTogether(projections.map((projection) => projection.name));
        expect(reports.map((report) => report.position)).to.deep.equal(projections.map(() => head));
        expectSameDocuments(await dumpOf(runner), live);
        const checkpoints = await store.collection(CHECKPOINTS).all();
        for (const projection of projections) {
          expect(checkpoints.find((doc) => doc.id === checkpointId(projection.name))).to.include({ generation: 2, position: head });
        }
        const [all] = moved;
        if (heap === 1) expect(all).to.satisfy((details: Record<string, number>) => details['evicted']! > 0 && details['reloaded']! > 0);
        else expect(all).to.include({ reloaded: 0 });

        // More history, followed live on the rebuilt generations, then a rebuild of some (`--only`).
        await writeHistory(app, owner, 7, 40);
        await runner.waitFor(await app.storyline.eventStore.headPosition());
        const followed = await dumpOf(runner);
        await runner.rebuildTogether(['story-words', 'iterations', 'subject_activity']);
        expectSameDocuments(await dumpOf(runner), followed);
        const generations = Object.fromEntries((await store.collection(CHECKPOINTS).all()).map((doc) => [doc['name'], doc['generation']]));
        expect(generations).to.deep.include({ 'story-words': 3, iterations: 3, subject_activity: 3, resources: 2, analytics: 2 });
      } finally {
        await runner.stop();
        await store.close();
      }
    });
  }

  it('folds generations built from position 0 at start the same way, checkpointed, so the next start reads nothing', async () => {
    const referenceStore = openSqliteReadStore({ path: ':memory:' });
    const reference = new ProjectorRunner({ eventStore: app.storyline.eventStore, readStore: referenceStore, projections });
    const store = openSqliteReadStore({ path: ':memory:', cacheBytes: 64 * 1024 });
    const folding = () => new ProjectorRunner({ eventStore: app.storyline.eventStore, readStore: store, projections, batchSize: 3, rebuildHeapBytes: 1, foldFromScratch: true });
    try {
      await reference.start();
      await expectBuiltOnceAtStart(folding, reference, await app.storyline.eventStore.headPosition());
    } finally {
      await reference.stop();
      await referenceStore.close();
      await store.close();
    }
  });
});

describe('offline rebuild in worker threads (parallel fold)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let eventStore: SqliteEventStore;
  let readStore: ReadStore;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'storyline-parallel-fold-'));
    const app = await storylineApp({ dataDir });
    const owner = await app.person('Owner');
    await writeHistory(app, owner, 20261127, 120);
    await app.close();
  });
  beforeEach(async () => {
    eventStore = await openSqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    readStore = openSqliteReadStore({ path: join(dataDir, 'readmodels.sqlite') });
  });
  afterEach(async () => {
    await readStore.close();
    await eventStore.close();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const files = () => ({ eventsPath: join(dataDir, 'events.sqlite'), readModelsPath: join(dataDir, 'readmodels.sqlite') });

  it('gives every collection the documents of the live build, each worker folding its group and building its indexes', async () => {
    const folds: FoldPlan[] = [];
    const inWorkers = sqliteParallelFold(files(), 3, rebuildCosts);
    const parallelFold: ParallelFold = (plan, onRead) => {
      folds.push(plan);
      return inWorkers(plan, onRead);
    };
    const progress: number[] = [];
    const runner = new ProjectorRunner({ eventStore, readStore, projections, batchSize: 7, foldRebuilds: true, parallelFold });
    try {
      await runner.start();
      const live = await dumpOf(runner);
      const head = await eventStore.headPosition();
      const reports = await runner.rebuildTogether(
        projections.map((projection) => projection.name),
        ({ eventsRead }) => progress.push(eventsRead),
      );
      expect(folds).to.have.length(1);
      expect(balancedGroups(folds[0]!.targets, 3, rebuildCosts)).to.have.length(3);
      expect(reports.map((report) => report.position)).to.deep.equal(projections.map(() => head));
      expect(progress.at(-1)).to.equal(head); // the events every worker has read, not their sum
      expectSameDocuments(await dumpOf(runner), live);
      const stories = runner.collection('stories');
      const someProject = (await stories.findOne({}))!['project_id'];
      expect(await stories.count({ project_id: someProject })).to.be.greaterThan(0); // indexed field answered
      await runner.rebuildTogether(['story-words', 'analytics']);
      expectSameDocuments(await dumpOf(runner), live);
    } finally {
      await runner.stop();
    }
  });

  it('builds a missing read-models file at start in workers, checkpointed, so the next start reads nothing', async () => {
    const live = new ProjectorRunner({ eventStore, readStore, projections });
    const freshPath = join(dataDir, 'fresh-readmodels.sqlite');
    const fresh = openSqliteReadStore({ path: freshPath });
    const folding = () =>
      new ProjectorRunner({
        eventStore,
        readStore: fresh,
        projections,
        foldFromScratch: true,
        parallelFold: sqliteParallelFold({ ...files(), readModelsPath: freshPath }, 2, rebuildCosts),
      });
    try {
      await live.start();
      await expectBuiltOnceAtStart(folding, live, await eventStore.headPosition());
    } finally {
      await live.stop();
      await fresh.close();
    }
  });

  it('abandons a rebuild in workers when the runner stops: the rebuild rejects once the workers have stopped, and a start drops what they wrote', async () => {
    const runner = new ProjectorRunner({ eventStore, readStore, projections, batchSize: 1, foldRebuilds: true, parallelFold: sqliteParallelFold(files(), 2, rebuildCosts) });
    await runner.start();
    const collections = await readStore.listCollections();
    let stopping: Promise<void> | null = null;
    const rebuilt = runner.rebuildTogether(
      projections.map((projection) => projection.name),
      () => (stopping ??= runner.stop()),
    );
    const failure = await rebuilt.catch((error: unknown) => error);
    await stopping;
    expect(failure).to.be.instanceOf(ProjectorStopped);
    // Nothing of the abandoned generations is left once the runner starts again on the same file.
    const again = new ProjectorRunner({ eventStore, readStore, projections });
    try {
      await again.start();
      expect(await readStore.listCollections()).to.deep.equal(collections);
    } finally {
      await again.stop();
    }
  });

  it('fails the rebuild when a worker fails, and the live generation keeps serving', async () => {
    // A projection the workers' registry does not hold: its worker throws before it folds anything.
    const unknown: Projection = { name: 'unknown_to_workers', version: 1, collections: [{ name: 'probe', indexes: [] }], apply: () => [] };
    const runner = new ProjectorRunner({
      eventStore,
      readStore,
      projections: [...projections, unknown],
      foldRebuilds: true,
      parallelFold: sqliteParallelFold(files(), 2, rebuildCosts),
    });
    try {
      await runner.start();
      const live = await dumpOf(runner);
      const failure = await runner.rebuildTogether(['resources', 'unknown_to_workers']).catch((error: unknown) => error);
      expect(String(failure)).to.contain('no projection named unknown_to_workers');
      expectSameDocuments(await dumpOf(runner), live);
    } finally {
      await runner.stop();
    }
  });
});

describe('balancedGroups', () => {
  const target = (projection: string) => ({ projection, generation: 2, version: 1, position: 0 });
  it('splits targets into at most the workers asked for, largest first to the lightest group, unknown costs as the average', () => {
    const targets = ['a', 'b', 'c', 'd', 'e'].map(target);
    const names = (groups: ReturnType<typeof balancedGroups>) => groups.map((group) => group.map((each) => each.projection));
    expect(names(balancedGroups(targets, 2, { a: 10, b: 6, c: 5, d: 1 }))).to.deep.equal([['a', 'c'], ['b', 'e', 'd']]); // e costs 5.5
    expect(names(balancedGroups(targets.slice(0, 2), 4, { a: 1, b: 1 }))).to.deep.equal([['a'], ['b']]);
    expect(names(balancedGroups(targets, 1, {}))).to.deep.equal([['a', 'b', 'c', 'd', 'e']]);
  });
});
