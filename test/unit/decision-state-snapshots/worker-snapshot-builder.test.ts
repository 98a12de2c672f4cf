// Stream-state snapshots built in a worker over the log and states.sqlite: a stream far enough past its
// snapshot gets one at its head (from the snapshot it had and the events after it, or from its first
// event), holding the documents a fold of its whole history holds; a stream shorter
// than the distance, or near its snapshot, gets none; the sweep builds what a start lacks (none, or one
// of an older state format), and a closed builder refuses calls.
import { decisionStateOfSnapshot } from '../../../src/domain/decision-states.js';
import { emptyState } from '../../../src/domain/decision-states.js';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foldNewEvents } from '../../../src/infra/stream-states/stream-state-loading.js';
import { streams, type StreamName } from '../../../src/domain/events.js';
import type { ProjectState } from '../../../src/domain/project-state.js';
import { STATES_FILE } from '../../../src/infra/data-directory.js';
import { openSqliteEventStore } from '../../../src/infra/event-store/sqlite-event-store.js';
import { silentLog } from '../../../src/infra/log.js';
import { openSqliteDecisionStateSnapshots } from '../../../src/infra/decision-state-snapshots/sqlite-decision-state-snapshots.js';
import { WorkerSnapshotBuilder } from '../../../src/infra/decision-state-snapshots/worker-snapshot-builder.js';
import { storylineApp } from '../../api/support/storyline-app.js';
import { writeSeededProjectHistory } from '../time-travel/seeded-project-history.js';

describe('stream-state snapshots built in a worker', function () {
  this.timeout(60_000);
  let dir: string;
  let long: StreamName<ProjectState>;
  let head: number;
  let short: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-snapshot-builder-'));
    const app = await storylineApp({ dataDir: dir });
    const { project, version } = await writeSeededProjectHistory(app, 30);
    long = streams.project(project);
    head = version;
    const other = await app.person('Sam Short');
    const created = await app.api('POST', '/projects', { as: other, body: { name: 'Short', new_account_name: 'Short Inc' } });
    short = streams.project(created.json.id as number);
    await app.close();
    rmSync(join(dir, STATES_FILE), { force: true });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const builderOver = () => new WorkerSnapshotBuilder({ eventsPath: join(dir, 'events.sqlite'), statesPath: join(dir, STATES_FILE), distance: 10 }, silentLog);

  async function stored(stream: string) {
    const snapshots = openSqliteDecisionStateSnapshots(join(dir, STATES_FILE), silentLog);
    try {
      return await snapshots.latest(stream);
    } finally {
      await snapshots.close();
    }
  }

  it('stores the state of a stream at its head, as a fold of its whole history, and nothing for a short stream', async () => {
    expect(head).to.be.greaterThan(30);
    const builder = builderOver();
    try {
      await builder.catchUp(long);
      await builder.catchUp(short);
    } finally {
      await builder.close();
    }
    const snapshot = (await stored(long))!;
    expect(snapshot.version).to.equal(head);
    const log = await openSqliteEventStore({ path: join(dir, 'events.sqlite'), readOnly: true });
    try {
      const scratch = emptyState(long);
      await foldNewEvents(log, scratch);
      expect(decisionStateOfSnapshot(snapshot).snapshot().docs).to.deep.equal(scratch.snapshot().docs);
      expect(scratch.stories.size, 'a state worth comparing').to.be.greaterThan(0);
    } finally {
      await log.close();
    }
    expect(await stored(short)).to.equal(null);
  });

  it('sweeps nothing when every long stream is near its snapshot, and builds again one of an older state format', async () => {
    const builder = builderOver();
    try {
      await builder.catchUp(long);
      expect(await builder.sweep()).to.equal(0);
      const snapshots = openSqliteDecisionStateSnapshots(join(dir, STATES_FILE), silentLog);
      const current = (await snapshots.latest(long))!;
      await snapshots.save({ ...current, format: current.format - 1, version: 1 });
      await snapshots.close();
      expect(await builder.sweep()).to.equal(1);
      expect(await stored(long)).to.deep.equal(current);
    } finally {
      await builder.close();
    }
  });

  it('builds from the latest snapshot and the events after it the state a fold of the whole history holds', async () => {
    const MARKER = { id: 999_999, name: 'only in the snapshot' };
    const log = await openSqliteEventStore({ path: join(dir, 'events.sqlite'), readOnly: true });
    const snapshots = openSqliteDecisionStateSnapshots(join(dir, STATES_FILE), silentLog);
    const scratch = emptyState(long);
    try {
      const earlier = emptyState(long);
      for (const event of await log.readStream(long, { from: 1, limit: head - 12 })) earlier.evolve(event);
      // A document only the snapshot holds: found in the built state, it shows the fold started there.
      const snapshot = earlier.snapshot();
      await snapshots.save({ ...snapshot, docs: { ...snapshot.docs, epic: [...(snapshot.docs['epic'] ?? []), MARKER] } });
      await foldNewEvents(log, scratch);
    } finally {
      await snapshots.close();
      await log.close();
    }
    const builder = builderOver();
    try {
      await builder.catchUp(long);
    } finally {
      await builder.close();
    }
    const built = decisionStateOfSnapshot((await stored(long))!);
    expect(built.version).to.equal(head);
    const { epic = [], ...others } = built.snapshot().docs;
    expect(epic.find((doc) => doc.id === MARKER.id)).to.deep.equal(MARKER);
    const epics = epic.filter((doc) => doc.id !== MARKER.id);
    expect(epics.length > 0 ? { ...others, epic: epics } : others).to.deep.equal(scratch.snapshot().docs);
  });

  it('sweeps the streams a start lacks snapshots of, and refuses calls once closed', async () => {
    rmSync(join(dir, STATES_FILE), { force: true });
    const builder = builderOver();
    expect(await builder.sweep()).to.equal(1);
    expect((await stored(long))!.version).to.equal(head);
    await builder.close();
    const refused = await builder.catchUp(long).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).to.equal('the snapshot builder is closed');
  });
});
