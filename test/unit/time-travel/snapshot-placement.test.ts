// Where snapshots are taken: for a log in a file, in a worker thread (the serving thread only hands it
// the take and awaits the answer); a worker that fails rejects the calls in flight and the next call
// starts a fresh one; what the worker stores is what the serving thread's folds read. For an in-memory
// log, on the calling thread.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { streams } from '../../../src/domain/events.js';
import { silentLog } from '../../../src/infra/log.js';
import { snapshottedProjections } from '../../../src/infra/time-travel/project-snapshotter.js';
import { WorkerProjectSnapshots } from '../../../src/infra/time-travel/snapshot-placement.js';
import { SNAPSHOTS_FILE } from '../../../src/infra/data-directory.js';
import { projections } from '../../../src/projections/registry.js';
import { PROJECT_SNAPSHOTS } from '../../../src/reactions/project-snapshots.js';
import { storylineApp } from '../../api/support/storyline-app.js';
import { writeSeededProjectHistory } from './seeded-project-history.js';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('time travel: where snapshots are taken', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-snapshot-placement-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('rejects a take when the worker fails, then takes it in a fresh worker that the serving folds read from', async () => {
    const dataDir = tempDir();
    const snapshotsPath = join(tempDir(), SNAPSHOTS_FILE);
    const placement = new WorkerProjectSnapshots({ eventsPath: join(dataDir, 'events.sqlite'), snapshotsPath, cacheBytes: 1 << 30, log: silentLog });
    let project = 0;
    let version = 0;
    try {
      // No log in the directory yet: the worker cannot open it and fails.
      expect((await rejection(placement.take(1, 1, 1))).message).to.match(/snapshot worker (failed|exited)/);
      expect(placement.lastTakeThreadId).to.equal(null);

      const app = await storylineApp({ dataDir });
      ({ project, version } = await writeSeededProjectHistory(app, 12));
      const [event] = await app.storyline.eventStore.readStream(streams.project(project), { from: version, limit: 1 });
      await app.close();

      expect(await placement.takenUpTo()).to.equal(0);
      await placement.take(project, version, event!.position);
      await placement.recordTakenUpTo(event!.position);
      expect(placement.lastTakeThreadId).to.be.a('number').and.not.equal(threadId);
      expect(await placement.takenUpTo()).to.equal(event!.position);
      for (const projection of snapshottedProjections(projections)) {
        const snapshot = await placement.source.nearest(project, projection, version);
        expect(snapshot, projection.name).to.include({ version, position: event!.position });
      }
    } finally {
      await placement.close();
    }
    // After the worker closed: a new server's folds read the stored snapshots before any worker runs.
    const restarted = new WorkerProjectSnapshots({ eventsPath: join(dataDir, 'events.sqlite'), snapshotsPath, cacheBytes: 1 << 30, log: silentLog });
    try {
      const [projection] = snapshottedProjections(projections);
      expect(await restarted.source.nearest(project, projection!, version)).to.include({ version });
    } finally {
      await restarted.close();
    }
  });

  it('rejects a take in flight when closed, and every call after', async () => {
    const dataDir = tempDir();
    const app = await storylineApp({ dataDir });
    const { project, version } = await writeSeededProjectHistory(app, 6);
    const [event] = await app.storyline.eventStore.readStream(streams.project(project), { from: version, limit: 1 });
    await app.close();
    const placement = new WorkerProjectSnapshots({ eventsPath: join(dataDir, 'events.sqlite'), snapshotsPath: join(dataDir, SNAPSHOTS_FILE), cacheBytes: 1 << 30, log: silentLog });
    const inFlight = rejection(placement.take(project, version, event!.position));
    await placement.close();
    expect((await inFlight).message).to.equal('the snapshot worker is closed');
    expect((await rejection(placement.takenUpTo())).message).to.equal('the snapshot worker is closed');
  });

  it('takes the snapshots of an in-memory log on the calling thread', async () => {
    const app = await storylineApp({ env: { STORYLINE_TIME_TRAVEL_SNAPSHOT_EVERY: '2' } });
    await writeSeededProjectHistory(app, 4);
    await app.storyline.reactions.waitFor(await app.storyline.eventStore.headPosition(), PROJECT_SNAPSHOTS);
    expect(app.storyline.snapshots.lastTakeThreadId).to.equal(threadId);
    await app.close();
  });
});
