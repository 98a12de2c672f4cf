// The states writes decide on, snapshotted into states.sqlite beside the log: after a restart a project's
// first writes decide on its snapshot and the events after it exactly as on its whole history (a rule
// that reads the state, the story it changes, the version it answers), a deleted or corrupt file
// changes no answer, and a start builds in the background the snapshots the file lacks.
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STATES_FILE } from '../../src/infra/data-directory.js';
import type { PersonHandle } from './support/storyline-app.js';
import { storylineApp, type StorylineApp } from './support/storyline-app.js';

describe('API: project states from their snapshots after a restart', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'storyline-states-'));
  const file = join(dir, STATES_FILE);
  let app: StorylineApp;
  let owner: PersonHandle;
  let projectId: number;
  let storyId: number;
  let version: number;

  const open = () => storylineApp({ dataDir: dir, env: { STORYLINE_STATE_SNAPSHOT_EVERY: '4' } });

  function snapshotVersion(): number | undefined {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT version FROM stream_states WHERE stream = ?').pluck().get(`project-${projectId}`) as number | undefined;
    } finally {
      db.close();
    }
  }

  /** After a restart: the taken label is refused, the story renamed, the version one up. */
  async function decidesAsBeforeAfterRestart(name: string): Promise<void> {
    await app.close();
    app = await open();
    const again = await app.api('POST', `/projects/${projectId}/labels`, { as: owner, body: { name: 'ops' } });
    expect(again.status).to.equal(400);
    expect(again.json.validation_errors).to.deep.equal([{ field: 'name', problem: 'Name has already been taken' }]);
    const renamed = await app.api('PUT', `/projects/${projectId}/stories/${storyId}`, { as: owner, body: { name } });
    expect(renamed.status).to.equal(200);
    expect(renamed.json).to.include({ id: storyId, name, story_type: 'bug' });
    expect(renamed.json.labels.map((label: { name: string }) => label.name)).to.deep.equal(['ops']);
    expect(Number(renamed.headers['x-tracker-project-version'])).to.equal(++version);
  }

  before(async () => {
    app = await open();
    owner = await app.person('Olive');
    const project = await app.api('POST', '/projects', { as: owner, body: { name: 'Snapshotted', new_account_name: 'Snapshots Inc' } });
    expect(project.status, project.text).to.equal(200);
    projectId = project.json.id;
    expect((await app.api('POST', `/projects/${projectId}/labels`, { as: owner, body: { name: 'ops' } })).status).to.equal(200);
    const story = await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name: 'First', story_type: 'bug', labels: [{ name: 'ops' }] } });
    storyId = story.json.id;
    let last = story;
    for (let n = 1; n <= 6; n++) last = await app.api('PUT', `/projects/${projectId}/stories/${storyId}`, { as: owner, body: { name: `Edit ${n}` } });
    version = Number(last.headers['x-tracker-project-version']);
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores a project state every 4 events it folds', async () => {
    await app.close(); // a write does not wait for its snapshot to be stored; a close does
    expect(version).to.be.greaterThan(8);
    expect(snapshotVersion()).to.be.within(version - 3, version);
    app = await open();
  });

  it('decides on the snapshot and the events after it as on the whole history', async () => {
    await decidesAsBeforeAfterRestart('After a restart');
  });

  it('decides the same with the file deleted, and with a file that is not a database', async () => {
    await app.close();
    rmSync(file, { force: true });
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
    app = await open();
    await decidesAsBeforeAfterRestart('Without snapshots');
    await app.close();
    writeFileSync(file, 'not a database'.repeat(500));
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
    app = await open();
    await decidesAsBeforeAfterRestart('From a corrupt file');
    expect(snapshotVersion(), 'a cold fold of the whole history snapshots it again').to.be.a('number');
  });

  it('builds in the background, after a start, the snapshots the file lacks', async () => {
    await app.close();
    rmSync(file, { force: true });
    app = await open();
    expect(snapshotVersion()).to.equal(undefined);
    expect(await app.storyline.buildStateSnapshots()).to.equal(1);
    expect(snapshotVersion()).to.equal(version);
    expect(await app.storyline.buildStateSnapshots(), 'nothing left to build').to.equal(0);
    await decidesAsBeforeAfterRestart('After the background build');
  });
});
