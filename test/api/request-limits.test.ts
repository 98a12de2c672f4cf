// Every text attribute and every list a request may send has a limit (src/domain/input-limits.ts); beyond
// it the request answers 400 `invalid_parameter` naming the key (length limits also in `requirement`,
// as the service reported them) and nothing is written: the project version does not move.
import { expect } from 'chai';
import { LIST_LIMITS, SEARCH_LIMITS, TEXT_LIMITS } from '../../src/domain/input-limits.js';
import type { TestResponse } from './support/http-client.js';
import { storyTeam, type StoryTeam, type StoryWorld } from '../support/project-fixture.js';

function expectRefused(res: TestResponse, field: string): void {
  expect(res.status, res.text).to.equal(400);
  expect(res.json.code).to.equal('invalid_parameter');
  expect(res.json.validation_errors.map((e: { field: string }) => e.field)).to.include(field);
}

const chars = (n: number) => 'x'.repeat(n);
const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('API: limits on what one request carries', () => {
  let team: StoryTeam;
  let w: StoryWorld;
  let projectId: number;
  let storyId: number;

  before(async () => {
    team = await storyTeam();
    w = team.w;
    projectId = await team.project();
    storyId = (await w.api('POST', `/projects/${projectId}/stories`, { as: w.owner, body: { name: 'anchor', labels: ['a'] } })).json.id;
  });
  after(() => w.close());

  const version = async () => (await w.api('GET', `/projects/${projectId}`, { as: w.owner })).json.version as number;
  const createStory = (body: Record<string, unknown>) => w.api('POST', `/projects/${projectId}/stories`, { as: w.owner, body });
  const updateStory = (body: Record<string, unknown>) => w.api('PUT', `/projects/${projectId}/stories/${storyId}`, { as: w.owner, body });

  it('refuses a story name over 5,000 characters, with the limit in requirement, and accepts 5,000', async () => {
    const before = await version();
    const res = await createStory({ name: chars(TEXT_LIMITS.story_name + 1) });
    expectRefused(res, 'name');
    expect(res.json.requirement).to.equal("'name' parameter must be 5000 characters or less.");
    expect(await version()).to.equal(before);
    expect((await createStory({ name: chars(TEXT_LIMITS.story_name) })).status).to.equal(200);
  });

  it('refuses a name close to the 1 MiB body limit before it becomes an event', async () => {
    const before = await version();
    expectRefused(await createStory({ name: chars(1_000_000) }), 'name');
    expectRefused(await updateStory({ name: chars(1_000_000) }), 'name');
    expect(await version()).to.equal(before);
  });

  it('bounds story descriptions, external ids, label names and rejection comments', async () => {
    expectRefused(await createStory({ name: 'd', description: chars(TEXT_LIMITS.story_description + 1) }), 'description');
    expectRefused(await updateStory({ external_id: chars(TEXT_LIMITS.external_id + 1) }), 'external_id');
    expectRefused(await createStory({ name: 'l', labels: [chars(TEXT_LIMITS.label_name + 1)] }), 'labels');
    expectRefused(await updateStory({ labels: [{ name: chars(TEXT_LIMITS.label_name + 1) }] }), 'labels');
    expectRefused(await updateStory({ current_state: 'rejected', comment: { text: chars(TEXT_LIMITS.comment_text + 1) } }), 'comment');
  });

  it('refuses more than 100 labels, label ids, owners, followers or nested tasks, naming the list', async () => {
    const before = await version();
    const names = (n: number) => Array.from({ length: n }, (_, i) => `label ${i}`);
    expectRefused(await createStory({ name: 'many', labels: names(LIST_LIMITS.story_labels + 1) }), 'labels');
    expectRefused(await createStory({ name: 'many', label_ids: ids(LIST_LIMITS.story_labels + 1) }), 'label_ids');
    expectRefused(await createStory({ name: 'many', owner_ids: ids(LIST_LIMITS.owner_ids + 1) }), 'owner_ids');
    expectRefused(await updateStory({ follower_ids: ids(LIST_LIMITS.follower_ids + 1) }), 'follower_ids');
    const tasks = Array.from({ length: LIST_LIMITS.story_tasks + 1 }, (_, i) => ({ description: `task ${i}` }));
    expectRefused(await createStory({ name: 'many', tasks }), 'tasks');
    expect(await version()).to.equal(before);
    const atLimit = await createStory({ name: 'exactly enough', labels: names(LIST_LIMITS.story_labels) });
    expect(atLimit.status, atLimit.text).to.equal(200);
    expect(atLimit.json.labels).to.have.length(LIST_LIMITS.story_labels);
  });

  it('bounds nested task descriptions, task and label writes', async () => {
    expectRefused(await createStory({ name: 't', tasks: [{ description: chars(TEXT_LIMITS.task_description + 1) }] }), 'tasks');
    const task = await w.api('POST', `/projects/${projectId}/stories/${storyId}/tasks`, { as: w.owner, body: { description: chars(TEXT_LIMITS.task_description + 1) } });
    expectRefused(task, 'description');
    expect(task.json.requirement).to.equal("'description' parameter must be 1000 characters or less.");
    expectRefused(await w.api('POST', `/projects/${projectId}/labels`, { as: w.owner, body: { name: chars(TEXT_LIMITS.label_name + 1) } }), 'name');
    expectRefused(await w.api('POST', `/projects/${projectId}/stories/${storyId}/labels`, { as: w.owner, body: { name: chars(TEXT_LIMITS.label_name + 1) } }), 'name');
  });

  it('bounds invitations: emails, names and the number of emails', async () => {
    const longEmail = `${chars(TEXT_LIMITS.email)}@example.com`;
    expectRefused(await w.api('POST', `/projects/${projectId}/memberships`, { as: w.owner, body: { email: longEmail, role: 'member' } }), 'email');
    expectRefused(
      await w.api('POST', `/projects/${projectId}/memberships`, { as: w.owner, body: { email: 'new@example.com', name: chars(TEXT_LIMITS.person_name + 1) } }),
      'name',
    );
    expectRefused(await w.api('POST', '/my/people', { as: w.owner, body: { emails: [longEmail] } }), 'emails');
    const emails = Array.from({ length: LIST_LIMITS.emails + 1 }, (_, i) => `p${i}@example.com`);
    expectRefused(await w.api('POST', '/my/people', { as: w.owner, body: { emails } }), 'emails');
  });

  describe('the stories filter', () => {
    const list = (filter: string) => w.api('GET', `/projects/${projectId}/stories`, { as: w.owner, query: { filter, fields: 'name' } });

    it('refuses the 13 KB negated filter that used to hold the thread for seconds (too many terms), and an over-long query', async () => {
      const res = await list(Array.from({ length: 1300 }, (_, i) => `-w${i}xyz`).join(' '));
      expectRefused(res, 'filter');
      expect(res.json.general_problem).to.include(`at most ${SEARCH_LIMITS.terms} terms`);
      // A GET's request line cannot carry that many characters (413 first); a saved search's body can.
      const body = { name: 'long', query: `"${'a'.repeat(SEARCH_LIMITS.query_length)}"` };
      const long = await w.api('POST', `/projects/${projectId}/my/searches`, { as: w.owner, body });
      expectRefused(long, 'query');
      expect(long.json.general_problem).to.include(`at most ${SEARCH_LIMITS.query_length} characters`);
    });

    it('accepts up to the term limit and refuses one term more', async () => {
      const terms = (n: number) => Array.from({ length: n }, (_, i) => `-nothing${i}`).join(' ');
      const within = await list(terms(SEARCH_LIMITS.terms));
      expect(within.status, within.text).to.equal(200);
      expect(within.json.map((story: { name: string }) => story.name)).to.include('anchor');
      const beyond = await list(terms(SEARCH_LIMITS.terms + 1));
      expectRefused(beyond, 'filter');
      expect(beyond.json.general_problem).to.include(`at most ${SEARCH_LIMITS.terms} terms`);
    });

    it('still combines cheap and text terms, negated or not, whatever their order', async () => {
      const res = await list('-"no such text" ANCHOR label:a -state:accepted');
      expect(res.status, res.text).to.equal(200);
      expect(res.json.map((story: { name: string }) => story.name)).to.deep.equal(['anchor']);
    });
  });
});
