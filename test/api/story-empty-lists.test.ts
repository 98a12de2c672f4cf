// Issue 11 item 13: a story's lists asked for with `fields` come back as `[]` when the story has none,
// never absent, on one story (both routes) and on the stories list.
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const LIST_KEYS = ['pull_requests', 'branches', 'reviews', 'blockers', 'comments', 'tasks'] as const;

describe('API: empty story lists requested with fields', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let projectId: number;
  let storyIds: number[];

  before(async () => {
    app = await storylineApp();
    owner = await app.person('Olive Owner');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Lists', new_account_name: 'Acme' } })).json.id;
    storyIds = [];
    for (const name of ['Bare feature', 'Bare chore']) {
      storyIds.push((await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name } })).json.id);
    }
  });
  after(() => app.close());

  for (const key of LIST_KEYS) {
    it(`answers ${key}: [] on GET story, alone and beside the defaults`, async () => {
      const [story] = storyIds;
      for (const path of [`/projects/${projectId}/stories/${story}`, `/stories/${story}`]) {
        const alone = await app.api('GET', path, { as: owner, query: { fields: key } });
        expect(alone.status, path).to.equal(200);
        expect(alone.json, path).to.deep.equal({ id: story, [key]: [] });
        const withDefaults = await app.api('GET', path, { as: owner, query: { fields: `:default,${key}` } });
        expect(withDefaults.json, path).to.include({ kind: 'story', name: 'Bare feature' });
        expect(withDefaults.json[key], path).to.deep.equal([]);
      }
    });

    it(`answers ${key}: [] for every story of the stories list`, async () => {
      const list = await app.api('GET', `/projects/${projectId}/stories`, { as: owner, query: { fields: `name,${key}` } });
      expect(list.status).to.equal(200);
      expect(list.json).to.have.deep.members(
        storyIds.map((id, i) => ({ id, name: i === 0 ? 'Bare feature' : 'Bare chore', [key]: [] })),
      );
    });
  }

  it('answers every list at once, empty, without dropping a default key', async () => {
    const res = await app.api('GET', `/projects/${projectId}/stories/${storyIds[0]}`, { as: owner, query: { fields: `:default,${LIST_KEYS.join(',')}` } });
    for (const key of LIST_KEYS) expect(res.json[key], key).to.deep.equal([]);
    expect(res.json.labels).to.deep.equal([]);
    expect(res.json.owner_ids).to.deep.equal([]);
  });
});
