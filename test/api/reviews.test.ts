// Reviews over HTTP (issue 31 item 2): a project's review types and its stories' reviews, the recorded
// key sets, story `fields=reviews`, nested reviews in a story create, the search terms, the activity
// feed, what deleting a type or a story does, moving a story, and bad input answered with the error
// hash and nothing written. Members write, viewers read.
import { expect } from 'chai';
import { storyTeam, type StoryWorld, type TestPerson } from '../support/project-fixture.js';
import type { TestResponse } from './support/http-client.js';

const REVIEW_TYPE_KEYS = ['kind', 'id', 'project_id', 'name', 'hidden', 'created_at', 'updated_at'];
const versionOf = (res: TestResponse) => Number(res.headers['x-tracker-project-version']);

describe('API: reviews', () => {
  let w: StoryWorld;
  let bob: TestPerson;
  let vera: TestPerson;
  let p: number;
  let story: number;
  let types: Record<string, number>;

  const version = async () => Number((await w.api('GET', `/projects/${p}`, { as: w.owner })).json.version);
  const expectRefused = (res: TestResponse, field: string, status = 400, code = 'invalid_parameter') => {
    expect(res.status, res.text).to.equal(status);
    expect(res.json).to.include({ kind: 'error', code });
    if (code === 'invalid_parameter') expect(res.json.validation_errors.map((e: { field: string }) => e.field)).to.include(field);
  };

  before(async () => {
    const team = await storyTeam();
    ({ w, bob, vera } = team);
    p = await team.project();
    story = (await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'Needs review' } })).json.id;
    const listed = (await w.api('GET', `/projects/${p}/review_types`, { as: vera })).json as Array<{ id: number; name: string }>;
    types = Object.fromEntries(listed.map((type) => [type.name, type.id]));
  });
  after(() => w.close());

  describe('review types', () => {
    it('starts a project with Tracker\'s four default types, with the recorded keys, not paginated', async () => {
      const res = await w.api('GET', `/projects/${p}/review_types`, { as: vera });
      expect(res.status).to.equal(200);
      expect(res.headers).to.not.have.property('x-tracker-pagination-total');
      expect(res.json.map((type: { name: string }) => type.name)).to.deep.equal(['Test (QA)', 'Design', 'Code', 'Security']);
      for (const type of res.json) {
        expect(Object.keys(type)).to.deep.equal(REVIEW_TYPE_KEYS);
        expect(type).to.include({ kind: 'review_type', project_id: p, hidden: false, created_at: '2024-01-10T12:00:00Z' });
      }
      const one = await w.api('GET', `/projects/${p}/review_types/${types['Code']}`, { as: vera });
      expect(one.json).to.include({ id: types['Code'], name: 'Code' });
    });

    it('creates, renames, hides and deletes a type, one project version each', async () => {
      const before = await version();
      const created = await w.api('POST', `/projects/${p}/review_types`, { as: bob, body: { name: '  Accessibility ' } });
      expect(created.status, created.text).to.equal(200);
      expect(created.json).to.include({ kind: 'review_type', project_id: p, name: 'Accessibility', hidden: false });
      expect(versionOf(created)).to.equal(before + 1);
      const renamed = await w.api('PUT', `/projects/${p}/review_types/${created.json.id}`, { as: bob, body: { name: 'A11y', hidden: 'true' } });
      expect(renamed.json).to.include({ name: 'A11y', hidden: true });
      const removed = await w.api('DELETE', `/projects/${p}/review_types/${created.json.id}`, { as: bob });
      expect(removed.status).to.equal(204);
      expect(versionOf(removed)).to.equal(before + 3);
      expect((await w.api('GET', `/projects/${p}/review_types/${created.json.id}`, { as: bob })).status).to.equal(404);
    });

    it('refuses duplicate, blank and unknown input and viewers, writing nothing', async () => {
      const before = await version();
      expectRefused(await w.api('POST', `/projects/${p}/review_types`, { as: bob, body: { name: 'code' } }), 'name');
      expectRefused(await w.api('POST', `/projects/${p}/review_types`, { as: bob, body: { name: '  ' } }), 'name');
      expectRefused(await w.api('POST', `/projects/${p}/review_types`, { as: bob, body: {} }), 'name');
      expectRefused(await w.api('POST', `/projects/${p}/review_types`, { as: bob, body: { name: 'x'.repeat(256) } }), 'name');
      expectRefused(await w.api('POST', `/projects/${p}/review_types`, { as: bob, body: { name: 'Perf', colour: 'red' } }), 'colour');
      expectRefused(await w.api('POST', `/projects/${p}/review_types`, { as: bob, body: { name: 'Perf', hidden: 'maybe' } }), 'hidden');
      expectRefused(await w.api('PUT', `/projects/${p}/review_types/${types['Code']}`, { as: bob, body: { name: 'Design' } }), 'name');
      expectRefused(await w.api('PUT', `/projects/${p}/review_types/${types['Code']}`, { as: bob, body: {} }), 'name');
      expectRefused(await w.api('POST', `/projects/${p}/review_types`, { as: vera, body: { name: 'Perf' } }), '', 403, 'unauthorized_operation');
      expectRefused(await w.api('DELETE', `/projects/${p}/review_types/${types['Code']}`, { as: vera }), '', 403, 'unauthorized_operation');
      expectRefused(await w.api('PUT', `/projects/${p}/review_types/999999`, { as: bob, body: { name: 'x' } }), '', 404, 'unfound_resource');
      expect(await version()).to.equal(before);
    });
  });

  describe('reviews of a story', () => {
    it('creates a review (status unstarted by default, no reviewer omitted), lists and nests its type as recorded', async () => {
      const before = await version();
      const created = await w.api('POST', `/projects/${p}/stories/${story}/reviews`, { as: bob, body: { review_type_id: types['Code'] } });
      expect(created.status, created.text).to.equal(200);
      expect(Object.keys(created.json)).to.deep.equal(['kind', 'id', 'story_id', 'review_type_id', 'status', 'created_at', 'updated_at']);
      expect(created.json).to.include({ kind: 'review', story_id: story, review_type_id: types['Code'], status: 'unstarted' });
      expect(versionOf(created)).to.equal(before + 1);
      const second = await w.api('POST', `/projects/${p}/stories/${story}/reviews`, { as: bob, body: { review_type_id: `${types['Design']}`, reviewer_id: bob.id, status: 'in_review' } });
      expect(second.json).to.include({ reviewer_id: bob.id, status: 'in_review' });

      const listed = await w.api('GET', `/projects/${p}/stories/${story}/reviews?fields=:default,review_type`, { as: vera });
      expect(listed.json.map((review: { id: number }) => review.id)).to.deep.equal([created.json.id, second.json.id]);
      expect(listed.json[0].review_type_id).to.equal(types['Code']);
      expect(listed.json[0].review_type).to.include({ kind: 'review_type', id: types['Code'], name: 'Code', hidden: false });
      const reviewer = await w.api('GET', `/projects/${p}/stories/${story}/reviews/${second.json.id}?fields=status,reviewer(name)`, { as: vera });
      expect(reviewer.json).to.deep.equal({ id: second.json.id, status: 'in_review', reviewer: { id: bob.id, name: 'Bob' } });

      const withReviews = await w.api('GET', `/projects/${p}/stories/${story}?fields=review_ids,reviews(status)`, { as: vera });
      expect(withReviews.json).to.deep.equal({
        id: story,
        review_ids: [created.json.id, second.json.id],
        reviews: [{ id: created.json.id, status: 'unstarted' }, { id: second.json.id, status: 'in_review' }],
      });
    });

    it('updates the status and the reviewer (null clears it), and deletes a review', async () => {
      const review = (await w.api('POST', `/projects/${p}/stories/${story}/reviews`, { as: bob, body: { review_type_id: types['Security'], reviewer_id: bob.id } })).json;
      w.clock.now += 60_000;
      const passed = await w.api('PUT', `/projects/${p}/stories/${story}/reviews/${review.id}`, { as: bob, body: { status: 'pass', reviewer_id: null } });
      expect(passed.status, passed.text).to.equal(200);
      expect(passed.json).to.include({ status: 'pass', updated_at: '2024-01-10T12:01:00Z' });
      expect(passed.json).to.not.have.property('reviewer_id');
      const touched = await w.api('GET', `/projects/${p}/stories/${story}?fields=updated_at`, { as: bob });
      expect(touched.json.updated_at).to.equal('2024-01-10T12:01:00Z');
      const removed = await w.api('DELETE', `/projects/${p}/stories/${story}/reviews/${review.id}`, { as: bob });
      expect(removed.status).to.equal(204);
      expect((await w.api('GET', `/projects/${p}/stories/${story}/reviews/${review.id}`, { as: bob })).status).to.equal(404);
    });

    it('refuses bad types, statuses, reviewers and keys, and viewers, writing nothing', async () => {
      const other = await w.project();
      const foreignType = (await w.api('GET', `/projects/${other}/review_types`, { as: w.owner })).json[0].id;
      const hidden = (await w.api('POST', `/projects/${p}/review_types`, { as: bob, body: { name: 'Retired', hidden: true } })).json.id;
      const outsider = await w.person('otto');
      const [review] = (await w.api('GET', `/projects/${p}/stories/${story}/reviews`, { as: bob })).json;
      const before = await version();
      const post = (body: Record<string, unknown>, as = bob) => w.api('POST', `/projects/${p}/stories/${story}/reviews`, { as, body });
      expectRefused(await post({}), 'review_type_id');
      expectRefused(await post({ review_type_id: foreignType }), 'review_type_id');
      expectRefused(await post({ review_type_id: 'code' }), 'review_type_id');
      expectRefused(await post({ review_type_id: hidden }), 'review_type_id');
      expectRefused(await post({ review_type_id: types['Code'], status: 'done' }), 'status');
      expectRefused(await post({ review_type_id: types['Code'], reviewer_id: outsider.id }), 'reviewer_id');
      expectRefused(await post({ review_type_id: types['Code'], reviewer_id: vera.id }), 'reviewer_id');
      expectRefused(await post({ review_type_id: types['Code'], id: 5 }), 'id');
      expectRefused(await post({ review_type_id: types['Code'], comment: 'x' }), 'comment');
      expectRefused(await post({ review_type_id: types['Code'] }, vera), '', 403, 'unauthorized_operation');
      const put = (body: Record<string, unknown>) => w.api('PUT', `/projects/${p}/stories/${story}/reviews/${review.id}`, { as: bob, body });
      expectRefused(await put({ status: 'approved' }), 'status');
      expectRefused(await put({ review_type_id: hidden }), 'review_type_id');
      expectRefused(await w.api('GET', `/projects/${p}/stories/${story}/reviews/999999`, { as: bob }), '', 404, 'unfound_resource');
      const elsewhere = (await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'Other' } })).json.id;
      expectRefused(await w.api('GET', `/projects/${p}/stories/${elsewhere}/reviews/${review.id}`, { as: bob }), '', 404, 'unfound_resource');
      expect(await version()).to.equal(before + 1); // the story 'Other' only
    });

    it('creates reviews nested in a story create, refusing the whole story for a bad one', async () => {
      const created = await w.api('POST', `/projects/${p}/stories?fields=name,reviews`, {
        as: bob,
        body: { name: 'Reviewed at birth', reviews: [{ review_type_id: types['Test (QA)'], reviewer_id: w.owner.id }, { review_type_id: types['Code'], status: 'revise' }] },
      });
      expect(created.status, created.text).to.equal(200);
      expect(created.json.reviews.map((r: { review_type_id: number; status: string }) => [r.review_type_id, r.status])).to.deep.equal([
        [types['Test (QA)'], 'unstarted'], [types['Code'], 'revise'],
      ]);
      const before = await version();
      expectRefused(await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'Bad', reviews: [{ review_type_id: 424242 }] } }), 'reviews');
      expectRefused(await w.api('POST', `/projects/${p}/stories`, { as: bob, body: { name: 'Bad', reviews: [{ review_type_id: types['Code'], id: 3 }] } }), 'reviews');
      expect(await version()).to.equal(before);
    });

    it('shows review writes in the story\'s activity', async () => {
      const review = (await w.api('POST', `/projects/${p}/stories/${story}/reviews`, { as: bob, body: { review_type_id: types['Design'] } })).json;
      await w.api('PUT', `/projects/${p}/stories/${story}/reviews/${review.id}`, { as: bob, body: { status: 'in_review' } });
      const [update, create] = (await w.api('GET', `/projects/${p}/stories/${story}/activity?limit=2`, { as: vera })).json;
      expect(create).to.include({ kind: 'review_create_activity', message: 'Bob added review: "Design"', highlight: 'added review:' });
      expect(create.changes[0]).to.include({ kind: 'review', change_type: 'create', id: review.id, name: 'Design' });
      expect(create.primary_resources[0]).to.include({ kind: 'story', id: story });
      expect(update).to.include({ kind: 'review_update_activity', message: 'Bob set review "Design" to in review' });
      expect(update.changes[0].original_values).to.include({ status: 'unstarted' });
    });

    it('finds stories by review type, status and reviewer', async () => {
      const target = await w.project();
      await w.member(target, bob, 'member');
      const codeType = (await w.api('GET', `/projects/${target}/review_types`, { as: bob })).json.find((t: { name: string }) => t.name === 'Code').id;
      const make = async (name: string, reviews: Array<Record<string, unknown>>) =>
        (await w.api('POST', `/projects/${target}/stories`, { as: bob, body: { name, reviews } })).json.id as number;
      const a = await make('a', [{ review_type_id: codeType, reviewer_id: bob.id, status: 'pass' }]);
      const b = await make('b', [{ review_type_id: codeType, status: 'revise' }]);
      const c = await make('c', []);
      const found = async (query: string) =>
        ((await w.api('GET', `/projects/${target}/search`, { as: bob, query: { query } })).json.stories.stories as Array<{ id: number }>).map((s) => s.id).sort();
      expect(await found('review:code')).to.deep.equal([a, b].sort());
      expect(await found('review_status:pass')).to.deep.equal([a]);
      expect(await found('reviewer:bob')).to.deep.equal([a]);
      expect(await found('-review:code')).to.deep.equal([c]);
      const listed = await w.api('GET', `/projects/${target}/stories`, { as: bob, query: { filter: 'review_status:revise', fields: 'id' } });
      expect(listed.json).to.deep.equal([{ id: b }]);
    });
  });

  describe('what goes with what', () => {
    it('deletes a type\'s reviews with it (their stories touched), and a story\'s reviews with the story', async () => {
      const q = await w.project();
      const typeId = (await w.api('POST', `/projects/${q}/review_types`, { as: w.owner, body: { name: 'Legal' } })).json.id;
      const s1 = (await w.api('POST', `/projects/${q}/stories`, { as: w.owner, body: { name: 's1', reviews: [{ review_type_id: typeId }] } })).json.id;
      const s2 = (await w.api('POST', `/projects/${q}/stories`, { as: w.owner, body: { name: 's2', reviews: [{ review_type_id: typeId }] } })).json.id;
      w.clock.now += 60_000;
      const removed = await w.api('DELETE', `/projects/${q}/review_types/${typeId}`, { as: w.owner });
      expect(removed.status).to.equal(204);
      for (const s of [s1, s2]) {
        const res = await w.api('GET', `/projects/${q}/stories/${s}?fields=reviews,updated_at`, { as: w.owner });
        expect(res.json.reviews).to.deep.equal([]);
        expect(res.json.updated_at).to.equal(new Date(w.clock.now).toISOString().replace(/\.\d+Z$/, 'Z'));
      }
      const [activity] = (await w.api('GET', `/projects/${q}/activity?limit=1`, { as: w.owner })).json;
      expect(activity.kind).to.equal('review_type_delete_activity');
      expect(activity.changes.map((c: { kind: string; change_type: string }) => `${c.kind} ${c.change_type}`)).to.deep.equal([
        'review_type delete', 'review delete', 'review delete', 'story update', 'story update',
      ]);

      const s3 = (await w.api('POST', `/projects/${q}/stories`, { as: w.owner, body: { name: 's3', reviews: [{ review_type_id: (await w.api('GET', `/projects/${q}/review_types`, { as: w.owner })).json[0].id }] } })).json;
      const [review] = (await w.api('GET', `/projects/${q}/stories/${s3.id}/reviews`, { as: w.owner })).json;
      expect((await w.api('DELETE', `/projects/${q}/stories/${s3.id}`, { as: w.owner })).status).to.equal(204);
      const [deletion] = (await w.api('GET', `/projects/${q}/activity?limit=1`, { as: w.owner })).json;
      expect(deletion.changes.some((c: { kind: string; id: number }) => c.kind === 'review' && c.id === review.id)).to.equal(true);
    });

    it('moves a story\'s reviews with it, matching their types by name (creating a missing one)', async () => {
      const source = await w.project();
      const target = await w.project();
      const custom = (await w.api('POST', `/projects/${source}/review_types`, { as: w.owner, body: { name: 'Perf' } })).json.id;
      const sourceCode = (await w.api('GET', `/projects/${source}/review_types`, { as: w.owner })).json.find((t: { name: string }) => t.name === 'Code').id;
      const targetCode = (await w.api('GET', `/projects/${target}/review_types`, { as: w.owner })).json.find((t: { name: string }) => t.name === 'Code').id;
      const s = (await w.api('POST', `/projects/${source}/stories`, { as: w.owner, body: { name: 'mover', reviews: [{ review_type_id: sourceCode, status: 'pass' }, { review_type_id: custom }] } })).json.id;
      const moved = await w.api('PUT', `/projects/${source}/stories/${s}`, { as: w.owner, body: { project_id: target } });
      expect(moved.status, moved.text).to.equal(200);
      const targetTypes = (await w.api('GET', `/projects/${target}/review_types`, { as: w.owner })).json as Array<{ id: number; name: string }>;
      const perf = targetTypes.find((t) => t.name === 'Perf');
      expect(perf, 'Perf created in the target').to.not.equal(undefined);
      const reviews = (await w.api('GET', `/projects/${target}/stories/${s}/reviews`, { as: w.owner })).json;
      expect(reviews.map((r: { review_type_id: number; status: string }) => [r.review_type_id, r.status])).to.deep.equal([[targetCode, 'pass'], [perf!.id, 'unstarted']]);
      expect((await w.api('GET', `/projects/${source}/stories/${s}/reviews`, { as: w.owner })).status).to.equal(404);
    });

    it('answers the review list as it stood at an earlier version', async () => {
      const [first] = (await w.api('GET', `/projects/${p}/stories/${story}/reviews`, { as: bob })).json;
      const at = versionOf(await w.api('GET', `/projects/${p}`, { as: bob }));
      const extra = (await w.api('POST', `/projects/${p}/stories/${story}/reviews`, { as: bob, body: { review_type_id: types['Code'] } })).json;
      const past = await w.api('GET', `/projects/${p}/stories/${story}/reviews`, { as: bob, query: { as_of_version: String(at) } });
      expect(past.status, past.text).to.equal(200);
      const ids = past.json.map((r: { id: number }) => r.id);
      expect(ids).to.include(first.id);
      expect(ids).to.not.include(extra.id);
      const firstTypes = await w.api('GET', `/projects/${p}/review_types`, { as: bob, query: { as_of_version: '1' } });
      expect(firstTypes.json.map((t: { name: string }) => t.name)).to.deep.equal(['Test (QA)', 'Design', 'Code', 'Security']);
    });
  });
});
