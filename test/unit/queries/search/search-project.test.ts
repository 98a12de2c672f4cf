// searchProject and the filters behind filter=, run by the in-memory read store over a small project
// whose stories each stand for one case of the grammar.
import { expect } from 'chai';
import fc from 'fast-check';
import { DomainError } from '../../../../src/domain/errors.js';
import { createMemoryReadStore } from '../../../../src/infra/read-store/memory-read-store.js';
import type { Doc } from '../../../../src/ports/read-store.js';
import { epicSearchFilter, searchProject, storySearchFilters, type SearchRequest } from '../../../../src/queries/search/search-project.js';
import { compileFilter } from '../../../../src/infra/read-store/memory-filter.js';
import type { SearchReader } from '../../../../src/queries/search/search-names.js';
import { seedStoryWords } from '../../../support/story-words-seed.js';
import { typedReadModels } from '../../../../src/projections/documents.js';

const P = 1;
const at = (iso: string) => Date.parse(iso);
const NOW = at('2024-01-20T12:00:00Z');
/** Start of the current iteration: stories accepted before it are done. */
const DONE_BEFORE = at('2024-01-15T00:00:00Z');

const [ANNA, BOB, MHAIRI, OUTSIDER] = [11, 12, 13, 14];
const [JEDI, OPS, EPIC_LABEL] = [21, 22, 23];

function story(id: number, fields: Partial<Doc>): Doc {
  return {
    id, project_id: P, name: `story ${id}`, story_type: 'feature', current_state: 'unstarted', requested_by_id: ANNA, owner_ids: [],
    follower_ids: [], label_ids: [], blocked_story_ids: [], created_at: at('2024-01-02T00:00:00Z'), updated_at: at('2024-01-02T00:00:00Z'),
    rank: `S${id}`, ...fields,
  };
}

const seed: Record<string, Doc[]> = {
  people: [
    { id: ANNA, name: 'Anna Quinn', initials: 'AQ', username: 'anna' },
    { id: BOB, name: 'Bob Marley', initials: 'BM', username: 'bob' },
    { id: MHAIRI, name: 'Mhairi Hall', initials: 'MH', username: 'mhairi' },
    { id: OUTSIDER, name: 'Otto Side', initials: 'OS', username: 'otto' },
  ],
  project_memberships: [ANNA, BOB, MHAIRI].map((person_id, index) => ({ id: 60 + index, project_id: P, person_id, role: 'member' })),
  labels: [
    { id: JEDI, project_id: P, name: 'jedi stuff' },
    { id: OPS, project_id: P, name: 'ops' },
    { id: EPIC_LABEL, project_id: P, name: 'epic one' },
  ],
  epics: [{ id: 31, project_id: P, name: 'Epic One', description: 'The first epic, about login', label_id: EPIC_LABEL, rank: 'E1' }],
  comments: [{ id: 41, project_id: P, story_id: 102, text: 'screenshot', file_attachment_ids: [51] }],
  // 103 waits for 102 (so 102 lists it in blocked_story_ids), 106 for something in words; 101's is resolved
  blockers: [
    { id: 71, project_id: P, story_id: 103, description: 'needs #102', resolved: false },
    { id: 72, project_id: P, story_id: 106, description: 'ops must open the port', resolved: false },
    { id: 73, project_id: P, story_id: 101, description: 'design sign-off', resolved: true },
    { id: 74, project_id: 2, story_id: 201, description: 'elsewhere', resolved: false },
  ],
  review_types: [
    { id: 81, project_id: P, name: 'Code', hidden: false },
    { id: 82, project_id: P, name: 'Test (QA)', hidden: false },
    { id: 83, project_id: 2, name: 'Code', hidden: false },
  ],
  reviews: [
    { id: 91, project_id: P, story_id: 101, review_type_id: 81, reviewer_id: BOB, status: 'in_review' },
    { id: 92, project_id: P, story_id: 106, review_type_id: 82, status: 'pass' },
    { id: 93, project_id: P, story_id: 106, review_type_id: 81, reviewer_id: OUTSIDER, status: 'revise' },
    { id: 94, project_id: 2, story_id: 201, review_type_id: 83, reviewer_id: BOB, status: 'pass' },
  ],
  stories: [
    story(101, {
      name: 'Login page', description: 'Users sign in with magic links', current_state: 'started', estimate: 2, owner_ids: [ANNA],
      requested_by_id: BOB, label_ids: [JEDI], created_at: at('2024-01-10T05:00:00Z'),
    }),
    story(102, { name: 'Crash on save', story_type: 'bug', label_ids: [OPS], blocked_story_ids: [103] }),
    story(103, { name: 'Release 1.0', story_type: 'release', current_state: 'unscheduled', rank: 'U103' }),
    story(104, { name: 'Old accepted', current_state: 'accepted', estimate: 3, accepted_at: at('2024-01-05T10:00:00Z'), owner_ids: [BOB], label_ids: [EPIC_LABEL] }),
    story(105, { name: 'Recent accepted', current_state: 'accepted', estimate: 1, accepted_at: at('2024-01-18T10:00:00Z'), owner_ids: [ANNA] }),
    story(106, {
      name: 'Logging cleanup', story_type: 'chore', current_state: 'started', owner_ids: [ANNA, MHAIRI], follower_ids: [BOB], external_id: 'EXT-1',
    }),
    story(201, { project_id: 2, name: 'Login elsewhere' }),
  ],
};

async function seededReader(): Promise<SearchReader> {
  const store = createMemoryReadStore();
  for (const [name, docs] of Object.entries(seed)) {
    await store.collection(name).ensureIndexes([{ field: 'project_id' }]);
    await store.collection(name).write(docs.map((doc) => ({ op: 'insert' as const, doc })));
  }
  await seedStoryWords(store, seed.stories!);
  return typedReadModels((name) => store.collection(name));
}

describe('searchProject over the memory read store', () => {
  let read: SearchReader;
  before(async () => {
    read = await seededReader();
  });

  const request = (text: string, overrides: Partial<SearchRequest> = {}): SearchRequest => ({
    projectId: P, text, parameter: 'query', searcherId: ANNA, now: NOW, timeZone: 'Etc/UTC', doneBefore: DONE_BEFORE, ...overrides,
  });
  const ids = async (text: string, overrides: Partial<SearchRequest> = {}) =>
    (await searchProject(read, request(text, overrides), { test: compileFilter })).stories.stories.map((doc) => doc.id);

  it('answers the search_result_container: stories in priority order with hits and points, epics, the query echoed', async () => {
    const result = await searchProject(read, request('type:feature'), { test: compileFilter });
    expect(result.query).to.equal('type:feature');
    expect(result.stories.stories.map((doc) => doc.id)).to.deep.equal([101, 105]);
    expect(result.stories).to.include({ total_hits: 2, total_hits_with_done: 3, total_points: 3, total_points_completed: 1 });
    expect(result.epics).to.deep.equal({ epics: [], total_hits: 0 });
    const all = await searchProject(read, request('type:feature includedone:true'), { test: compileFilter });
    expect(all.stories).to.include({ total_hits: 3, total_hits_with_done: 3, total_points: 6, total_points_completed: 4 });
    expect(all.stories.stories.map((doc) => doc.id)).to.deep.equal([101, 104, 105]);
  });

  it('leaves done stories out only when there is a finished iteration, and honours the last includedone:', async () => {
    expect(await ids('state:accepted', { doneBefore: null })).to.deep.equal([104, 105]);
    expect(await ids('state:accepted includedone:true includedone:false')).to.deep.equal([105]);
  });

  it('finds free text as whole words in name and description, a trailing * as a prefix, phrases literally', async () => {
    expect(await ids('log*')).to.deep.equal([101, 106]);
    expect(await ids('log')).to.deep.equal([]);
    expect(await ids('MAGIC')).to.deep.equal([101]);
    expect(await ids('"magic links"')).to.deep.equal([101]);
    expect(await ids('"links magic"')).to.deep.equal([]);
    expect(await ids('"1.0"')).to.deep.equal([103]);
    expect(await ids('1x0')).to.deep.equal([]);
    expect(await ids('name:crash description:magic')).to.deep.equal([]);
    expect(await ids('name:crash,login')).to.deep.equal([101, 102]);
  });

  it('finds labels, epics, and their absence by name', async () => {
    expect(await ids('label:"JEDI stuff"')).to.deep.equal([101]);
    expect(await ids('label:ops,"jedi stuff"')).to.deep.equal([101, 102]);
    expect(await ids('label:nosuch')).to.deep.equal([]);
    expect(await ids('label:" Ops "')).to.deep.equal([102]);
    expect(await ids('label:""')).to.deep.equal([105, 106, 103]);
    expect(await ids('epic:"epic one" includedone:true')).to.deep.equal([104]);
    expect(await ids('has:epic includedone:true')).to.deep.equal([104]);
    expect(await ids('epics:"" includedone:true')).to.deep.equal([101, 102, 105, 106, 103]);
    expect(await ids('no:labels')).to.deep.equal([105, 106, 103]);
  });

  it('finds people by initials, username, full name, id or a fragment of the name, among members only', async () => {
    expect(await ids('state:started owner:AQ')).to.deep.equal([101, 106]);
    expect(await ids('owned_by:mhairi')).to.deep.equal([106]);
    expect(await ids('owner:"mhairi hall"')).to.deep.equal([106]);
    expect(await ids(`owner:${MHAIRI}`)).to.deep.equal([106]);
    expect(await ids('owner:hal')).to.deep.equal([106]);
    expect(await ids('owner:otto')).to.deep.equal([]);
    expect(await ids('owner:""')).to.deep.equal([102, 103]);
    expect(await ids('requester:bm')).to.deep.equal([101]);
    expect(await ids('mywork:anna includedone:true')).to.deep.equal([101, 106]);
  });

  it('evaluates has:, is:, no:, id:, estimate: and external_id:', async () => {
    // blocked: an unresolved blocker, whether it names a story (103) or not (106); a resolved one (101) does not count
    expect(await ids('has:blocker')).to.deep.equal([106, 103]);
    expect(await ids('is:blocked')).to.deep.equal([106, 103]);
    expect(await ids('is:blocking')).to.deep.equal([102]);
    expect(await ids('no:blocked')).to.deep.equal([101, 102, 105]);
    expect(await ids('has:attachment')).to.deep.equal([102]);
    expect(await ids('is:following')).to.deep.equal([]);
    expect(await ids('is:following', { searcherId: BOB })).to.deep.equal([106]);
    expect(await ids('has:external_id')).to.deep.equal([106]);
    expect(await ids('external_id:EXT-1,EXT-2')).to.deep.equal([106]);
    expect(await ids('id:101,103,201')).to.deep.equal([101, 103]);
    expect(await ids('estimate:-1')).to.deep.equal([102, 106, 103]);
    expect(await ids('estimate:1,2')).to.deep.equal([101, 105]);
  });

  it('finds stories by their reviews: type by name, status, reviewer among members', async () => {
    expect(await ids('review:code')).to.deep.equal([101, 106]);
    expect(await ids('review:"TEST (QA)"')).to.deep.equal([106]);
    expect(await ids('review:security')).to.deep.equal([]);
    expect(await ids('review_status:pass')).to.deep.equal([106]);
    expect(await ids('review_status:in_review,revise')).to.deep.equal([101, 106]);
    expect(await ids('reviewer:bm')).to.deep.equal([101]);
    expect(await ids('reviewer:otto')).to.deep.equal([]);
    expect(await ids('review:code -review_status:revise')).to.deep.equal([101]);
    expect(await ids('-review:code')).to.deep.equal([102, 105, 103]);
  });

  it('reads dates as days of the searcher’s time zone: absolute, relative and ranges', async () => {
    expect(await ids('created:2024-01-10')).to.deep.equal([101]);
    expect(await ids('created:2024-01-10', { timeZone: 'America/Los_Angeles' })).to.deep.equal([]);
    expect(await ids('created_on:2024-01-09', { timeZone: 'America/Los_Angeles' })).to.deep.equal([101]);
    expect(await ids('created_since:-2w')).to.deep.equal([101]);
    expect(await ids('created_before:2024-01-10')).to.deep.equal([102, 105, 106, 103]);
    expect(await ids('accepted:2024-01-01..2024-01-05 includedone:true')).to.deep.equal([104]);
    expect(await ids('accepted_since:2024-01-18')).to.deep.equal([105]);
    expect(await ids('accepted:..-1w includedone:true')).to.deep.equal([104]);
    expect(await ids('accepted:..yesterday includedone:true')).to.deep.equal([104, 105]);
    expect(await ids('accepted:today')).to.deep.equal([]);
  });

  it('combines terms left to right with AND / OR / space, negation and parentheses', async () => {
    expect(await ids('(type:bug OR type:chore) AND -has:owner')).to.deep.equal([102]);
    expect(await ids('type:bug OR type:chore -has:owner')).to.deep.equal([102]);
    expect(await ids('type:chore OR type:bug -has:owner')).to.deep.equal([102]);
    expect(await ids('type:chore OR (type:bug -has:owner)')).to.deep.equal([102, 106]);
    expect(await ids('-(state:started OR state:unscheduled)')).to.deep.equal([102, 105]);
  });

  it('lists epics the text matches, and none for terms epics do not have', async () => {
    const result = await searchProject(read, request('login'), { test: compileFilter });
    expect(result.stories.stories.map((doc) => doc.id)).to.deep.equal([101]);
    expect(result.epics.epics.map((doc) => doc.id)).to.deep.equal([31]);
    expect(result.epics.total_hits).to.equal(1);
    expect((await searchProject(read, request('login state:started'), { test: compileFilter })).epics.total_hits).to.equal(0);
  });

  it('gives the stories list its filters and the epics list its filter, refusing on the named parameter', async () => {
    const filters = await storySearchFilters(read, request('state:started,accepted', { parameter: 'filter' }));
    const page = await read('stories').find(filters.filter, { sort: { rank: 1 }, skip: 1, limit: 1 });
    expect(page.map((doc) => doc.id)).to.deep.equal([105]);
    expect(await read('stories').count(filters.filterWithDone)).to.equal(4);
    const epics = await read('epics').find(await epicSearchFilter(read, request('label:"epic one"', { parameter: 'filter' })));
    expect(epics.map((doc) => doc.id)).to.deep.equal([31]);
    const refusals = [
      epicSearchFilter(read, request('state:started', { parameter: 'filter' })),
      searchProject(read, request('a OR', { parameter: 'filter' }), { test: compileFilter }),
      searchProject(read, request('  ', { parameter: 'filter' }), { test: compileFilter }),
    ];
    for (const refused of refusals) {
      const error = await refused.then(() => null, (caught: unknown) => caught);
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).details.validation_errors?.[0]?.field).to.equal('filter');
    }
  });

  it('property (seeded): every query that parses runs in the store, and a query and its negation split the project', async () => {
    const parts = ['state:started', 'state:accepted,unstarted', 'type:bug', 'label:ops', 'label:""', 'owner:aq', 'owner:""', 'requester:bob',
      'mywork:mh', 'epic:"epic one"', 'epics:""', 'has:blocker', 'no:labels', 'is:following', 'has:attachment', 'estimate:-1,2', 'id:101,104',
      'external_id:EXT-1', 'created:2024-01-10', 'created:-200years..today', 'updated:-99999h', 'accepted_since:-2w', 'updated_before:today', 'log*', 'magic', '"crash on"', 'name:page',
      'description:links', '-type:chore', '-has:owner'];
    const joiners = [' ', ' AND ', ' OR '];
    const query = fc
      .array(fc.tuple(fc.constantFrom(...parts), fc.constantFrom(...joiners), fc.boolean()), { minLength: 1, maxLength: 5 })
      .map((terms) => terms.map(([term, joiner, grouped], index) => `${index > 0 ? joiner : ''}${grouped ? `(${term})` : term}`).join(''));
    const total = await read('stories').count({ project_id: P });
    const hits = async (text: string) => read('stories').count((await storySearchFilters(read, request(text))).filterWithDone);
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(query, async (text) => {
        const negated = `-(${text})`;
        const [matching, rest] = [await hits(text), await hits(negated).catch(() => null)];
        if (rest === null) return; // a lone date term cannot be negated
        checked++;
        expect(matching + rest, `${text} / ${negated}`).to.equal(total);
      }),
      { numRuns: 300, seed: 20261123 },
    );
    expect(checked).to.be.greaterThan(250);
  });
});
