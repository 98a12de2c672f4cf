// Review types and reviews, given / when / then on a project stream.
import { expect } from 'chai';
import { decideCreateReview } from '../../../src/domain/review/create-review.js';
import { decideDeleteReview } from '../../../src/domain/review/delete-review.js';
import { decideUpdateReview } from '../../../src/domain/review/update-review.js';
import { decideCreateReviewType } from '../../../src/domain/review/create-review-type.js';
import { decideDeleteReviewType } from '../../../src/domain/review/delete-review-type.js';
import { decideUpdateReviewType } from '../../../src/domain/review/update-review-type.js';
import type { ReviewDoc, ReviewTypeDoc } from '../../../src/domain/review/review-state.js';
import { decideDeleteStory } from '../../../src/domain/story/delete-story.js';
import { decideMoveStoryIn, storyMoveSnapshot } from '../../../src/domain/story/move-story.js';
import { changeKinds } from './conversation-scenario.js';
import { givenProject, MEMBER, OWNER, PROJECT_T0, STRANGER, VIEWER, problemsOf, Scenario } from './decider-scenario.js';

function review(project: Scenario, id: number): ReviewDoc | undefined {
  return project.state.reviews.get(id);
}

function reviewType(project: Scenario, id: number): ReviewTypeDoc | undefined {
  return project.state.reviewTypes.get(id);
}

/** A project with a "Code" review type; returns the project and the type's id. */
function givenCodeReviews(): { project: Scenario; code: number } {
  const project = givenProject();
  const code = project.when(decideCreateReviewType, { name: 'Code' }).subject.id;
  return { project, code };
}

describe('review types', () => {
  it('creates a type (name trimmed, shown), renames and hides it, one change each', () => {
    const project = givenProject();
    const created = project.when(decideCreateReviewType, { name: ' Code ' });
    expect(created.type).to.equal('review_type_create');
    expect(created.data.changes[0]!.new_values).to.deep.equal({
      id: created.subject.id, project_id: 7, name: 'Code', hidden: false, created_at: project.now, updated_at: project.now,
    });
    const hidden = project.when(decideUpdateReviewType, { review_type_id: created.subject.id, name: 'Code review', hidden: true });
    expect(hidden.data.changes[0]!.original_values).to.deep.equal({ name: 'Code', hidden: false, updated_at: created.data.changes[0]!.new_values!['updated_at'] });
    expect(reviewType(project, created.subject.id)).to.include({ name: 'Code review', hidden: true });
  });

  it('refuses a blank, taken (whatever the case) or missing name and an empty update, changing nothing', () => {
    const { project, code } = givenCodeReviews();
    expect(problemsOf(project.rejects(decideCreateReviewType, { name: '  ' }, 'invalid_parameter', 'name'))['name']).to.equal("Name can't be blank");
    expect(problemsOf(project.rejects(decideCreateReviewType, { name: 'CODE' }, 'invalid_parameter', 'name'))['name']).to.equal('Name has already been taken');
    project.rejects(decideCreateReviewType, { name: 'x'.repeat(256) }, 'invalid_parameter', 'name');
    project.rejects(decideUpdateReviewType, { review_type_id: code }, 'invalid_parameter', 'name');
    project.rejects(decideUpdateReviewType, { review_type_id: 4242, name: 'x' }, 'unfound_resource');
    // renaming a type to its own name in another case is no clash
    project.when(decideUpdateReviewType, { review_type_id: code, name: 'code' });
    expect(reviewType(project, code)!.name).to.equal('code');
  });

  it('deletes a type with every review of it, touching each of their stories once', () => {
    const { project, code } = givenCodeReviews();
    const design = project.when(decideCreateReviewType, { name: 'Design' }).subject.id;
    const a = project.story({ name: 'a' });
    const b = project.story({ name: 'b' });
    const first = project.when(decideCreateReview, { story_id: a, review_type_id: code }).subject.id;
    const second = project.when(decideCreateReview, { story_id: a, review_type_id: code }).subject.id;
    const third = project.when(decideCreateReview, { story_id: b, review_type_id: code }).subject.id;
    const kept = project.when(decideCreateReview, { story_id: b, review_type_id: design }).subject.id;
    const deleted = project.when(decideDeleteReviewType, { review_type_id: code });
    expect(deleted.type).to.equal('review_type_delete');
    expect(changeKinds(deleted)).to.deep.equal(['review_type:delete', 'review:delete', 'review:delete', 'review:delete', 'story:update', 'story:update']);
    expect(deleted.data.changes.filter((c) => c.kind === 'review').map((c) => [c.id, c.name])).to.deep.equal([[first, 'Code'], [second, 'Code'], [third, 'Code']]);
    expect([first, second, third].map((id) => review(project, id))).to.deep.equal([undefined, undefined, undefined]);
    expect(review(project, kept)).to.not.equal(undefined);
    expect(project.doc(a).updated_at).to.equal(project.now);
  });
});

describe('reviews', () => {
  it('creates a review (unstarted, no reviewer) named by its type, touching the story', () => {
    const { project, code } = givenCodeReviews();
    const story = project.story();
    const decision = project.when(decideCreateReview, { story_id: story, review_type_id: code }, MEMBER);
    expect(decision.type).to.equal('review_create');
    expect(changeKinds(decision)).to.deep.equal(['review:create', 'story:update']);
    expect(decision.data.changes[0]).to.deep.include({ name: 'Code' });
    expect(decision.data.changes[0]!.new_values).to.deep.equal({
      id: decision.subject.id, story_id: story, review_type_id: code, status: 'unstarted', created_at: project.now, updated_at: project.now,
    });
    expect(decision.data.primary_resources[0]).to.deep.include({ kind: 'story', id: story });
    expect(project.doc(story).updated_at).to.equal(project.now);
  });

  it('updates status and reviewer, recording only what changed; null takes the reviewer off', () => {
    const { project, code } = givenCodeReviews();
    const story = project.story();
    const id = project.when(decideCreateReview, { story_id: story, review_type_id: code, reviewer_id: MEMBER }).subject.id;
    const passed = project.when(decideUpdateReview, { story_id: story, review_id: id, status: 'pass' });
    expect(passed.data.changes[0]!.original_values).to.deep.include({ status: 'unstarted' });
    expect(passed.data.changes[0]!.new_values).to.deep.equal({ status: 'pass', updated_at: project.now });
    project.when(decideUpdateReview, { story_id: story, review_id: id, reviewer_id: null });
    expect(review(project, id)).to.not.have.property('reviewer_id');
    project.when(decideDeleteReview, { story_id: story, review_id: id });
    expect(review(project, id)).to.equal(undefined);
  });

  it('refuses unknown or hidden types, viewers and strangers as reviewers, and unknown statuses', () => {
    const { project, code } = givenCodeReviews();
    const hidden = project.when(decideCreateReviewType, { name: 'Old', hidden: true }).subject.id;
    const story = project.story();
    project.rejects(decideCreateReview, { story_id: story, review_type_id: 4242 }, 'invalid_parameter', 'review_type_id');
    expect(problemsOf(project.rejects(decideCreateReview, { story_id: story, review_type_id: hidden }, 'invalid_parameter', 'review_type_id'))['review_type_id'])
      .to.match(/hidden/);
    project.rejects(decideCreateReview, { story_id: story, review_type_id: code, reviewer_id: VIEWER }, 'invalid_parameter', 'reviewer_id');
    project.rejects(decideCreateReview, { story_id: story, review_type_id: code, reviewer_id: STRANGER }, 'invalid_parameter', 'reviewer_id');
    project.rejects(decideCreateReview, { story_id: story, review_type_id: code, status: 'approved' }, 'invalid_parameter', 'status');
    project.rejects(decideCreateReview, { story_id: 4242, review_type_id: code }, 'unfound_resource');
    // a review already of a type that is hidden later keeps it and can still be updated
    const id = project.when(decideCreateReview, { story_id: story, review_type_id: code, reviewer_id: OWNER }).subject.id;
    project.when(decideUpdateReviewType, { review_type_id: code, hidden: true });
    project.when(decideUpdateReview, { story_id: story, review_id: id, review_type_id: code, status: 'in_review' });
    expect(review(project, id)).to.include({ status: 'in_review' });
    const other = project.story({ name: 'other' });
    project.rejects(decideUpdateReview, { story_id: other, review_id: id, status: 'pass' }, 'unfound_resource');
  });

  it('goes with its story when the story is deleted', () => {
    const { project, code } = givenCodeReviews();
    const story = project.story();
    const id = project.when(decideCreateReview, { story_id: story, review_type_id: code }).subject.id;
    const deletion = project.when(decideDeleteStory, { story_id: story });
    expect(deletion.data.changes.find((c) => c.kind === 'review')).to.deep.include({ id, change_type: 'delete', name: 'Code' });
    expect(review(project, id)).to.equal(undefined);
  });

  it('moves with its story, its type matched by name in the target or created there', () => {
    const { project: source, code } = givenCodeReviews();
    const perf = source.when(decideCreateReviewType, { name: 'Perf', hidden: false }).subject.id;
    const story = source.story();
    source.when(decideCreateReview, { story_id: story, review_type_id: code, status: 'pass' });
    source.when(decideCreateReview, { story_id: story, review_type_id: perf });
    const target = new Scenario('project-8', { start: PROJECT_T0, tickMs: 1000, actorId: OWNER });
    target.fold('project_create', [
      { kind: 'project', change_type: 'create', id: 8, new_values: { name: 'Target', point_scale: '0,1,2,3', bugs_and_chores_are_estimatable: false, enable_tasks: true, automatic_planning: true } },
      { kind: 'project_membership', change_type: 'create', id: 50, new_values: { person_id: OWNER, role: 'owner' } },
    ]);
    const targetCode = target.when(decideCreateReviewType, { name: 'CODE' }).subject.id;
    const moved = target.when(decideMoveStoryIn, storyMoveSnapshot(source.state, story));
    const created = moved.data.changes.filter((c) => c.kind === 'review_type');
    expect(created.map((c) => c.new_values!['name'])).to.deep.equal(['Perf']);
    const reviews = [...target.state.reviews] as ReviewDoc[];
    expect(reviews.map((r) => [r.review_type_id, r.status])).to.deep.equal([[targetCode, 'pass'], [created[0]!.id, 'unstarted']]);
  });
});
