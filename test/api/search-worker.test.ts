// Searches on a data directory on disk run in the search worker (src/infra/search/), over its own
// read-only connection to readmodels.sqlite: what the serving thread has just written is found at once,
// refusals come back as the same 400s, and a search of the past (as_of_version) reads the past.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestResponse } from './support/http-client.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

/** Words no story of these tests holds: they widen a query past the terms from which sets answer it. */
const UNUSED_WORDS = ['abacus', 'bramble', 'cobalt', 'dulcet', 'ember', 'fjord', 'gossamer', 'hinterland', 'isthmus', 'juniper', 'kelp', 'lagoon'];

interface OnDisk {
  app: StorylineApp;
  owner: PersonHandle;
  project: number;
  /** Closes the app and removes its data directory. */
  close(): Promise<void>;
}

/** An app on a data directory of its own (so searches run in the search worker), with an owner and one project. */
async function openOnDisk(env: Record<string, string> = {}): Promise<OnDisk> {
  const dataDir = mkdtempSync(join(tmpdir(), 'storyline-search-worker-'));
  const app = await storylineApp({ dataDir, env });
  const owner = await app.person('Owner');
  const project = (await app.api('POST', '/projects', { as: owner, body: { name: 'On disk', new_account_name: 'Disk Inc' } })).json.id as number;
  return {
    app,
    owner,
    project,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function expectRefused(res: TestResponse, field: string, saying: RegExp): void {
  expect(res.status, res.text).to.equal(400);
  expect(res.json.code).to.equal('invalid_parameter');
  expect(res.json.validation_errors[0].field).to.equal(field);
  expect(res.json.validation_errors[0].problem).to.match(saying);
}

describe('API: searches on a data directory run off the serving thread', () => {
  let disk: OnDisk;
  let app: StorylineApp;
  let owner: PersonHandle;
  let project: number;

  const search = (query: string, extra: Record<string, string> = {}) => app.api('GET', `/projects/${project}/search`, { as: owner, query: { query, ...extra } });
  const filtered = (filter: string) => app.api('GET', `/projects/${project}/stories`, { as: owner, query: { filter } });
  const names = (stories: Array<{ name: string }>) => stories.map((story) => story.name);

  before(async () => {
    disk = await openOnDisk();
    ({ app, owner, project } = disk);
  });
  after(() => disk.close());

  it('finds what was just written, through /search and the stories filter, and stops finding what was renamed', async () => {
    const created = await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Launch the zeppelin', labels: ['air'], estimate: 2, story_type: 'feature' } });
    expect(created.status, created.text).to.equal(200);
    await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Land the zeppelin', current_state: 'accepted', accepted_at: '2024-01-09T12:00:00Z', estimate: 1, story_type: 'feature' } });

    const found = await search('zeppelin');
    expect(found.status, found.text).to.equal(200);
    expect(found.json.stories.total_hits).to.equal(2);
    expect(found.json.stories.total_points).to.equal(3);
    expect(found.json.stories.total_points_completed).to.equal(1);
    expect(names(found.json.stories.stories)).to.have.members(['Launch the zeppelin', 'Land the zeppelin']);
    const page = await filtered('zeppelin label:air');
    expect(page.status, page.text).to.equal(200);
    expect(names(page.json)).to.deep.equal(['Launch the zeppelin']);

    await app.api('PUT', `/projects/${project}/stories/${created.json.id}`, { as: owner, body: { name: 'Launch the balloon' } });
    expect(names((await filtered('zeppelin')).json)).to.deep.equal(['Land the zeppelin']);
    expect(names((await search('balloon')).json.stories.stories)).to.deep.equal(['Launch the balloon']);
  });

  it('answers a search of the past from the project as it was (as_of_version)', async () => {
    const before = Number((await app.api('GET', `/projects/${project}`, { as: owner })).json.version);
    await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'A later kite' } });
    expect((await search('kite')).json.stories.total_hits).to.equal(1);
    const past = await search('kite', { as_of_version: String(before) });
    expect(past.status, past.text).to.equal(200);
    expect(past.json.stories.total_hits).to.equal(0);
  });

  it('answers from what the worker keeps between searches, brought up to date: a rename and a state change are found at once', async () => {
    const airship = await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Red airship hangar' } });
    const kite = await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Blue kestrel twine', current_state: 'unstarted', story_type: 'chore' } });
    // Queries of 16 terms or more are answered by sets over the project's rows, which the worker keeps.
    const wide = (terms: string) => `${terms} OR ${UNUSED_WORDS.join(' OR ')}`;
    const words = wide('airship OR kestrel OR hangar OR twine');
    for (let i = 0; i < 2; i++) expect(names((await search(words)).json.stories.stories)).to.have.members(['Red airship hangar', 'Blue kestrel twine']);
    expect(names((await search(`state:started (${wide('blimp OR kestrel OR airship OR twine')})`)).json.stories.stories)).to.deep.equal([]);

    await app.api('PUT', `/projects/${project}/stories/${airship.json.id}`, { as: owner, body: { name: 'Red blimp' } });
    await app.api('PUT', `/projects/${project}/stories/${kite.json.id}`, { as: owner, body: { current_state: 'started' } });
    expect(names((await search(words)).json.stories.stories)).to.deep.equal(['Blue kestrel twine']);
    expect(names((await search(`state:started (${wide('blimp OR kestrel OR airship OR twine')})`)).json.stories.stories)).to.deep.equal(['Blue kestrel twine']);
    expect(names((await filtered(wide('blimp OR airship OR kestrel OR hangar'))).json)).to.have.members(['Red blimp', 'Blue kestrel twine']);
  });

  it('brings what it keeps up to date after writes: a story added, one deleted and one moved show in the next search, in priority order', async () => {
    const create = async (name: string) => (await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name } })).json.id as number;
    const [first, second, third] = [await create('Quokka one'), await create('Quokka two'), await create('Quokka three')];
    // 16 terms or more, so the worker answers by sets over the rows and text index it keeps
    const wide = `quokka OR wombat OR ${UNUSED_WORDS.join(' OR ')}`;
    const inPriorityOrder = async () => names((await app.api('GET', `/projects/${project}/stories`, { as: owner, query: { limit: '500' } })).json).filter((name) => /quokka|wombat/i.test(name));
    const expectFound = async () => {
      const expected = await inPriorityOrder();
      expect(names((await filtered(wide)).json)).to.deep.equal(expected);
      expect(names((await search(wide)).json.stories.stories)).to.have.members(expected);
    };
    await expectFound();
    await expectFound();

    const moved = await app.api('PUT', `/projects/${project}/stories/${third}`, { as: owner, body: { before_id: first } });
    expect(moved.status, moved.text).to.equal(200);
    await expectFound();
    expect((await inPriorityOrder()).indexOf('Quokka three')).to.be.below((await inPriorityOrder()).indexOf('Quokka one'));
    expect((await app.api('DELETE', `/projects/${project}/stories/${second}`, { as: owner })).status).to.equal(204);
    await create('Wombat four');
    await expectFound();
    expect(await inPriorityOrder()).to.include.members(['Wombat four', 'Quokka three', 'Quokka one']).and.not.include('Quokka two');
  });

  it('refuses a query that does not parse with the same 400 on the parameter it came in', async () => {
    expectRefused(await search('label:'), 'query', /label/);
    expectRefused(await filtered('(zeppelin'), 'filter', /never closed/);
  });
});

describe('API: a search too costly for the work budget is refused by the search worker', () => {
  it('answers 400 invalid_parameter saying so, on /search and on the stories filter', async () => {
    const { app, owner, project, close } = await openOnDisk({ STORYLINE_SEARCH_WORK: '200' });
    try {
      for (let i = 0; i < 10; i++) await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: `Rocket ${i}` } });
      expectRefused(await app.api('GET', `/projects/${project}/search`, { as: owner, query: { query: 'rocket' } }), 'query', /too costly/);
      expectRefused(await app.api('GET', `/projects/${project}/stories`, { as: owner, query: { filter: 'rocket' } }), 'filter', /too costly/);
    } finally {
      await close();
    }
  });
});

describe('API: several search workers (STORYLINE_SEARCH_WORKERS) answer alike', () => {
  let disk: OnDisk;
  let app: StorylineApp;
  let owner: PersonHandle;
  let project: number;

  before(async () => {
    disk = await openOnDisk({ STORYLINE_SEARCH_WORKERS: '2' });
    ({ app, owner, project } = disk);
  });
  after(() => disk.close());

  it('answers searches sent at once the same, before and after a write, from every worker', async () => {
    const first = await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Polish the harbour crane' } });
    await app.api('POST', `/projects/${project}/stories`, { as: owner, body: { name: 'Paint the harbour boat' } });
    const query = `harbour OR crane OR boat OR lighthouse OR ${UNUSED_WORDS.join(' OR ')}`;
    const together = async () =>
      Promise.all(Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0
          ? app.api('GET', `/projects/${project}/search`, { as: owner, query: { query } }).then((res) => res.json.stories.stories.map((story: { name: string }) => story.name))
          : app.api('GET', `/projects/${project}/stories`, { as: owner, query: { filter: query } }).then((res) => res.json.map((story: { name: string }) => story.name)),
      ));
    for (const answer of await together()) expect(answer).to.have.members(['Polish the harbour crane', 'Paint the harbour boat']);
    await app.api('PUT', `/projects/${project}/stories/${first.json.id}`, { as: owner, body: { name: 'Polish the lighthouse lamp' } });
    for (const answer of await together()) expect(answer).to.have.members(['Polish the lighthouse lamp', 'Paint the harbour boat']);
  });
});
