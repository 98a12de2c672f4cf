// What a costly search does over HTTP (issue 30, item 2): a word written 200 times answers as the word
// once, ordinary queries answer the stories they always did, a 13,000-character filter of 200 long
// words answers, and a query beyond the work budget (STORYLINE_SEARCH_WORK, set low here) is refused
// with the `invalid_parameter` error hash on its parameter, writing nothing, while cheap ones still
// answer.
import { expect } from 'chai';
import type { TestResponse } from './support/http-client.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const STORIES: Array<Record<string, unknown>> = [
  { name: 'Webhook retries', description: 'Retry a failed webhook delivery with back-off', story_type: 'feature', current_state: 'started', estimate: 2, labels: ['ops'] },
  { name: 'Login page', description: 'Sign in with magic links', story_type: 'feature', current_state: 'unstarted', estimate: 1 },
  { name: 'Crash on save', description: 'The webhook settings page crashes', story_type: 'bug', current_state: 'finished', labels: ['ops', 'ui'] },
  { name: 'Log rotation', description: 'Rotate the server logs weekly', story_type: 'chore', current_state: 'unscheduled' },
  { name: 'Magic links', description: 'Email a sign-in link', story_type: 'feature', current_state: 'delivered', estimate: 3, labels: ['ui'] },
  { name: 'Release 1.0', story_type: 'release', current_state: 'unstarted' },
  { name: 'Slow search', description: 'Searching many words freezes the page', story_type: 'bug', current_state: 'unstarted', labels: ['ui'] },
  { name: 'Dark mode', description: 'A dark theme for the board', story_type: 'feature', current_state: 'unscheduled' },
];

async function projectWithStories(app: StorylineApp, owner: PersonHandle): Promise<{ projectId: number; names: Map<number, string> }> {
  const project = await app.api('POST', '/projects', { as: owner, body: { name: 'Costly searches', new_account_name: 'Search Inc' } });
  expect(project.status, project.text).to.equal(200);
  const projectId = project.json.id as number;
  const names = new Map<number, string>();
  for (const story of STORIES) {
    const created = await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: story });
    expect(created.status, created.text).to.equal(200);
    names.set(created.json.id, story.name as string);
  }
  return { projectId, names };
}

describe('API: costly searches', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let projectId: number;
  let names: Map<number, string>;
  const search = (query: string) => app.api('GET', `/projects/${projectId}/search`, { as: owner, query: { query } });
  const filtered = (filter: string) => app.api('GET', `/projects/${projectId}/stories`, { as: owner, query: { filter, limit: '100' } });
  const storyNames = (res: TestResponse): string[] => {
    expect(res.status, res.text).to.equal(200);
    return (res.json.stories ? res.json.stories.stories : res.json).map((story: { id: number }) => names.get(story.id)).sort();
  };

  before(async () => {
    app = await storylineApp();
    owner = await app.person('Olivia Owner');
    ({ projectId, names } = await projectWithStories(app, owner));
  });
  after(async () => app.close());

  it('answers a word written 200 times as the word once, through /search and filter=', async () => {
    for (const word of ['webhook', 'label:ops', '"magic links"', 'log*', '-state:unscheduled']) {
      const once = await search(word);
      const repeated = await search(Array(200).fill(word).join(' '));
      expect(repeated.json.stories, word).to.deep.equal(once.json.stories);
      expect(storyNames(await filtered(Array(200).fill(word).join(' OR '))), word).to.deep.equal(storyNames(await filtered(word)));
    }
  });

  it('answers ordinary queries with the stories they always named', async () => {
    const expected: Array<[string, string[]]> = [
      ['webhook', ['Crash on save', 'Webhook retries']],
      ['label:ops', ['Crash on save', 'Webhook retries']],
      ['label:ui -type:bug', ['Magic links']],
      ['magic OR dark', ['Dark mode', 'Login page', 'Magic links']],
      ['"sign in"', ['Login page']],
      ['sign*', ['Login page', 'Magic links']],
      ['log* type:chore', ['Log rotation']],
      ['state:unstarted,unscheduled -release', ['Dark mode', 'Log rotation', 'Login page', 'Slow search']],
      ['(webhook OR links) estimate:2,3', ['Magic links', 'Webhook retries']],
      ['no:labels type:feature', ['Dark mode', 'Login page']],
      ['page page page page', ['Crash on save', 'Login page', 'Slow search']],
    ];
    for (const [query, stories] of expected) {
      expect(storyNames(await search(query)), query).to.deep.equal(stories);
      expect(storyNames(await filtered(query)), query).to.deep.equal(stories);
    }
  });

  it('answers a 13,000-character filter of 200 long words', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `${'w'.repeat(60)}${String(i).padStart(3, '0')}`).join(' ');
    expect(long.length).to.be.greaterThan(12_000);
    expect(storyNames(await filtered(long))).to.deep.equal([]);
    expect(storyNames(await search(`${long.slice(0, long.lastIndexOf(' '))} OR webhook`))).to.deep.equal(['Crash on save', 'Webhook retries']);
  });

  describe('beyond the work budget', () => {
    let small: StorylineApp;
    let smallOwner: PersonHandle;
    let smallProject: number;
    before(async () => {
      small = await storylineApp({ env: { STORYLINE_SEARCH_WORK: '300' } });
      smallOwner = await small.person('Olivia Owner');
      smallProject = (await projectWithStories(small, smallOwner)).projectId;
    });
    after(async () => small.close());

    const version = async () => Number((await small.api('GET', `/projects/${smallProject}`, { as: smallOwner })).json.version);

    it('refuses a query too costly with the invalid_parameter hash on its parameter, and writes nothing', async () => {
      const before = await version();
      const refusals: Array<[TestResponse, string]> = [
        [await small.api('GET', `/projects/${smallProject}/search`, { as: smallOwner, query: { query: 'type:feature OR type:bug' } }), 'query'],
        [await small.api('GET', `/projects/${smallProject}/stories`, { as: smallOwner, query: { filter: '-webhook -login -crash -magic -dark' } }), 'filter'],
      ];
      for (const [res, parameter] of refusals) {
        expect(res.status, res.text).to.equal(400);
        expect(res.json).to.include({ kind: 'error', code: 'invalid_parameter', error: 'One or more request parameters was missing or invalid.' });
        expect(res.json.general_problem).to.match(/^This search is too costly to run/);
        expect(res.json.validation_errors).to.deep.equal([{ field: parameter, problem: res.json.general_problem }]);
      }
      expect(await version()).to.equal(before);
    });

    it('still answers a query within it', async () => {
      const res = await small.api('GET', `/projects/${smallProject}/search`, { as: smallOwner, query: { query: 'magic' } });
      expect(res.status, res.text).to.equal(200);
      expect(res.json.stories.total_hits).to.equal(2);
    });
  });
});
