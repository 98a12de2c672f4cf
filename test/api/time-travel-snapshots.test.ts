// Time travel from persisted snapshots (snapshots.sqlite), through HTTP on a data directory on disk:
// after a restart (no fold in memory, the snapshot reaction caught up) every version answers what the
// project answered live at that version; a corrupt or deleted snapshots.sqlite changes no answer (the
// file is made again and the reaction takes the snapshots again).
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { threadId } from 'node:worker_threads';
import { join } from 'node:path';
import { SNAPSHOTS_FILE } from '../../src/infra/data-directory.js';
import { PROJECT_SNAPSHOTS } from '../../src/reactions/project-snapshots.js';
import { writeSeededProjectHistory } from '../unit/time-travel/seeded-project-history.js';
import type { PersonHandle } from './support/storyline-app.js';
import { storylineApp, type StorylineApp } from './support/storyline-app.js';

interface Recorded {
  version: number;
  path: string;
  text: string;
}

/** Snapshots every 3 versions; one fold in memory, so that nearly every answer below folds cold. */
const ENV = { STORYLINE_TIME_TRAVEL_SNAPSHOT_EVERY: '3', STORYLINE_TIME_TRAVEL_CACHE_ENTRIES: '1' };

describe('API: time travel from persisted snapshots', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'storyline-snapshots-'));
  const file = join(dir, SNAPSHOTS_FILE);
  const recorded: Recorded[] = [];
  let owner: PersonHandle;
  /** The thread that took the last snapshot while the history was written. */
  let takenInThread: number | null = null;

  const open = () => storylineApp({ dataDir: dir, env: ENV });

  async function snapshotsCaughtUp(app: StorylineApp): Promise<void> {
    await app.storyline.reactions.waitFor(await app.storyline.eventStore.headPosition(), PROJECT_SNAPSHOTS);
  }

  function storedSnapshots(): number {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT count(*) FROM snapshots').pluck().get() as number;
    } finally {
      db.close();
    }
  }

  /** A fresh server on the directory answers every recorded GET as of its version as it was answered live (newest first). */
  async function expectRecordedAnswersAfterRestart(): Promise<StorylineApp> {
    const app = await open();
    for (const { version, path, text } of [...recorded].reverse()) {
      const res = await app.api('GET', path, { as: owner, query: { as_of_version: version } });
      expect(res.status, `${path} as of ${version}`).to.equal(200);
      expect(res.text, `${path} as of ${version}`).to.equal(text);
    }
    return app;
  }

  function removeSnapshotFile(): void {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }

  /** The recorded answers after a restart, then the reaction caught up has stored snapshots again. */
  async function expectRecordedAnswersThenSnapshotsTakenAgain(): Promise<void> {
    const app = await expectRecordedAnswersAfterRestart();
    await snapshotsCaughtUp(app);
    await app.close();
    expect(storedSnapshots()).to.be.greaterThan(5);
  }

  before(async () => {
    const app = await open();
    ({ owner } = await writeSeededProjectHistory(app, 30, async ({ project, version, owner: writer }) => {
      expect(version).to.be.greaterThan(0);
      for (const path of [`/projects/${project}/stories?fields=:default,tasks,label_ids`, `/projects/${project}/labels`]) {
        recorded.push({ version, path, text: (await app.api('GET', path, { as: writer })).text });
      }
    }));
    await snapshotsCaughtUp(app);
    takenInThread = app.storyline.snapshots.lastTakeThreadId;
    await app.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the snapshots in a worker thread, so the serving thread never folds for them', () => {
    expect(takenInThread).to.be.a('number');
    expect(takenInThread).to.not.equal(threadId);
  });

  it('answers every version after a restart, starting from the snapshots, as it answered live', async () => {
    expect(storedSnapshots()).to.be.greaterThan(5);
    await (await expectRecordedAnswersAfterRestart()).close();
  });

  it('changes no answer when snapshots.sqlite is not a database, and takes the snapshots again', async () => {
    removeSnapshotFile();
    writeFileSync(file, 'not a database '.repeat(1000));
    await expectRecordedAnswersThenSnapshotsTakenAgain();
  });

  it('changes no answer when a stored snapshot does not decode, and takes it again at the next start', async () => {
    const garbled = Buffer.from('garbled');
    const db = new Database(file);
    db.prepare('UPDATE snapshots SET body = ?').run(garbled);
    db.close();
    await (await expectRecordedAnswersAfterRestart()).close();
    const app = await open();
    await snapshotsCaughtUp(app);
    await app.close();
    const check = new Database(file, { readonly: true });
    const bodies = check.prepare('SELECT body FROM snapshots').pluck().all() as Buffer[];
    check.close();
    expect(bodies.filter((body) => !body.equals(garbled))).to.have.length.greaterThan(5);
  });

  it('changes no answer when snapshots.sqlite is deleted, and takes the snapshots again', async () => {
    removeSnapshotFile();
    await expectRecordedAnswersThenSnapshotsTakenAgain();
  });
});
