// Search answers in the response byte cache (issue 14): `/search`, the stories list's `filter=` and the
// epics list's `filter=` are cached under a key that holds what they depend on besides the project
// version (the searcher, their time zone and local day, the local hour with an hour term, the current
// iteration's start). Each case changes exactly one of those inputs, with no project write in between,
// and expects the fresh answer, never the cached one.
import { expect } from 'chai';
import { entityTag } from '../../src/api/response-cache.js';
import type { TestResponse } from './support/http-client.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CREATED = Date.UTC(2024, 0, 10, 12); // Wednesday 12:00 UTC; Thursday 01:00 in Auckland

describe('API: search answers in the response cache', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let bob: PersonHandle;
  let carl: PersonHandle;
  let p: number;
  let fuel: number;
  let version: () => Promise<string>;

  const storyIds = (res: TestResponse): number[] => {
    expect(res.status, res.text).to.equal(200);
    return res.json.stories.stories.map((story: { id: number }) => story.id);
  };
  const search = (query: string, as: PersonHandle = owner) => app.api('GET', `/projects/${p}/search`, { as, query: { query } });
  const filtered = async (filter: string, as: PersonHandle = owner) => {
    const res = await app.api('GET', `/projects/${p}/stories`, { as, query: { filter, fields: 'id' } });
    expect(res.status, res.text).to.equal(200);
    return res.json.map((story: { id: number }) => story.id);
  };
  const setTimeZone = (person: PersonHandle, zone: string) =>
    app.storyline.deps.people.updatePerson(person.id, { time_zone: zone }, { commandId: `zone-${person.id}-${zone}`, actorId: person.id, now: app.clock.now });

  beforeEach(async () => {
    app = await storylineApp({ start: CREATED });
    owner = await app.person('Olivia Owner');
    bob = await app.person('Bob');
    carl = await app.person('Carl');
    const project = await app.api('POST', '/projects', { as: owner, body: { name: 'Rockets', new_account_name: 'Rockets Inc', iteration_length: 1 } });
    expect(project.status, project.text).to.equal(200);
    p = project.json.id;
    for (const person of [bob, carl]) {
      const member = await app.api('POST', `/projects/${p}/memberships`, { as: owner, body: { person_id: person.id, role: 'member' } });
      expect(member.status, member.text).to.equal(200);
    }
    await setTimeZone(owner, 'Etc/UTC');
    const story = await app.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: 'Rocket fuel', labels: ['rocket'], current_state: 'started', estimate: 1 } });
    expect(story.status, story.text).to.equal(200);
    fuel = story.json.id;
    version = async () => (await app.api('GET', `/projects/${p}`, { as: owner })).headers['x-tracker-project-version'] as string;
    app.clock.now = CREATED + 30 * 60_000;
  });
  afterEach(() => app.close());

  it('answers a repeated search from the byte cache (entity tag of the key, 304 on If-None-Match)', async () => {
    const first = await search('label:rocket');
    const again = await search('label:rocket');
    expect(storyIds(again)).to.deep.equal([fuel]);
    expect(again.text).to.equal(first.text);
    expect(again.headers['etag']).to.equal(first.headers['etag']);
    expect(again.headers['etag'], 'the tag of a cache key, not of the body').to.not.equal(entityTag(Buffer.from(again.text)));
    const unchanged = await app.api('GET', `/projects/${p}/search`, { as: owner, query: { query: 'label:rocket' }, headers: { 'If-None-Match': first.headers['etag'] as string } });
    expect(unchanged.status).to.equal(304);
  });

  it('does not serve an answer of an earlier project version after a write', async () => {
    expect(storyIds(await search('label:rocket'))).to.deep.equal([fuel]);
    expect(await filtered('label:rocket')).to.deep.equal([fuel]);
    const added = await app.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: 'Rocket nose', labels: ['rocket'] } });
    expect(storyIds(await search('label:rocket'))).to.deep.equal([fuel, added.json.id]);
    expect(await filtered('label:rocket')).to.deep.equal([fuel, added.json.id]);
  });

  it('does not serve one searcher’s is:following answer to another of the same role', async () => {
    const follow = await app.api('PUT', `/projects/${p}/stories/${fuel}`, { as: owner, body: { follower_ids: [bob.id] } });
    expect(follow.status, follow.text).to.equal(200);
    expect(storyIds(await search('is:following', carl))).to.deep.equal([]);
    expect(storyIds(await search('is:following', bob))).to.deep.equal([fuel]);
    expect(await filtered('is:following', carl)).to.deep.equal([]);
    expect(await filtered('is:following', bob)).to.deep.equal([fuel]);
  });

  it('does not serve an answer read in another time zone of the searcher (no project write in between)', async () => {
    const before = await version();
    expect(storyIds(await search('created:2024-01-10'))).to.deep.equal([fuel]);
    expect(await filtered('created:2024-01-10')).to.deep.equal([fuel]);
    await setTimeZone(owner, 'Pacific/Auckland'); // 2024-01-10 there ended at 11:00 UTC, before the story
    expect(await version()).to.equal(before);
    expect(storyIds(await search('created:2024-01-10'))).to.deep.equal([]);
    expect(await filtered('created:2024-01-10')).to.deep.equal([]);
    expect(storyIds(await search('created:2024-01-11'))).to.deep.equal([fuel]);
  });

  it('does not serve yesterday’s answer today', async () => {
    expect(storyIds(await search('created:today'))).to.deep.equal([fuel]);
    expect(await filtered('created:today')).to.deep.equal([fuel]);
    const epic = await app.api('POST', `/projects/${p}/epics`, { as: owner, body: { name: 'Moonshot' } });
    expect(epic.status, epic.text).to.equal(200);
    const epics = async () => (await app.api('GET', `/projects/${p}/epics`, { as: owner, query: { filter: 'created:today', fields: 'id' } })).json;
    expect(await epics()).to.deep.equal([{ id: epic.json.id }]);
    app.clock.now += DAY;
    expect(storyIds(await search('created:today'))).to.deep.equal([]);
    expect(await filtered('created:today')).to.deep.equal([]);
    expect(await epics()).to.deep.equal([]);
    expect(storyIds(await search('created:yesterday'))).to.deep.equal([fuel]);
  });

  it('does not serve an hour term’s answer in the next local hour; within the hour it stands', async () => {
    // -1h is the local clock hour before the current one: at 12:30 and at 12:59 that is 11:00-12:00.
    expect(storyIds(await search('created_since:-1h'))).to.deep.equal([fuel]);
    app.clock.now = CREATED + 59 * 60_000;
    expect(storyIds(await search('created_since:-1h'))).to.deep.equal([fuel]);
    app.clock.now = CREATED + 2 * HOUR; // -1h is now 13:00-14:00: the story (12:00) is before it
    expect(storyIds(await search('created_since:-1h'))).to.deep.equal([]);
    expect(await filtered('created_since:-1h')).to.deep.equal([]);
    expect(storyIds(await search('created_since:-2h'))).to.deep.equal([fuel]);
  });

  it('does not serve an answer from before the current iteration moved on (done stories)', async () => {
    const accepted = await app.api('PUT', `/projects/${p}/stories/${fuel}`, { as: owner, body: { current_state: 'accepted' } });
    expect(accepted.status, accepted.text).to.equal(200);
    expect(storyIds(await search('label:rocket'))).to.deep.equal([fuel]);
    const res = await search('label:rocket');
    expect(res.json.stories.total_hits_with_done).to.equal(1);
    app.clock.now += 8 * DAY; // a week-long iteration later the story was accepted in a finished iteration
    const later = await search('label:rocket');
    expect(storyIds(later)).to.deep.equal([]);
    expect(later.json.stories.total_hits_with_done).to.equal(1);
  });
});
