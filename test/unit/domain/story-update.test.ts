import type { StoryCounts } from '../../../src/domain/project-documents.js';
import { expect } from 'chai';
import { decideAddStoryLabel } from '../../../src/domain/story/add-story-label.js';
import { decideAddStoryOwner } from '../../../src/domain/story/add-story-owner.js';
import { decideRemoveStoryLabel } from '../../../src/domain/story/remove-story-label.js';
import { decideRemoveStoryOwner } from '../../../src/domain/story/remove-story-owner.js';
import { decideUpdateStory } from '../../../src/domain/story/update-story.js';
import { decideDeleteStory } from '../../../src/domain/story/delete-story.js';
import type { ResourceChange } from '../../../src/domain/events.js';
import { MEMBER, OWNER, STRANGER, PROJECT_T0 as T0, givenProject, problemsOf } from './decider-scenario.js';

function storyChange(changes: ResourceChange[]): ResourceChange {
  return changes.find((change) => change.kind === 'story')!;
}

describe('update story', () => {
  it('records only the changed keys plus updated_at, with original values and explicit nulls', () => {
    const project = givenProject();
    const id = project.story({ name: 'Old', description: 'text' });
    const created = project.doc(id);
    const decision = project.when(decideUpdateStory, { story_id: id, name: 'New', description: null, story_priority: 'p3' });
    expect(decision.type).to.equal('story_update');
    const change = storyChange(decision.data.changes);
    expect(change).to.deep.include({ change_type: 'update', name: 'New', story_type: 'feature', story_priority: 'p3' });
    expect(change.original_values).to.deep.equal({ name: 'Old', description: 'text', updated_at: created.updated_at });
    expect(change.new_values).to.deep.equal({ name: 'New', description: null, updated_at: project.now });
    expect(change).to.not.have.property('rank');
    expect(project.doc(id)).to.not.have.property('description');
  });

  it('still appends one event touching updated_at when nothing else changes', () => {
    const project = givenProject();
    const id = project.story();
    const decision = project.when(decideUpdateStory, { story_id: id, name: 'A story' });
    expect(decision.type).to.equal('story_update');
    expect(Object.keys(storyChange(decision.data.changes).new_values!)).to.deep.equal(['updated_at']);
  });

  it('is unfound for a story that is not in the project', () => {
    const error = givenProject().rejected(decideUpdateStory, { story_id: 4242, name: 'x' });
    expect(error.code).to.equal('unfound_resource');
  });

  describe('estimates', () => {
    it('accepts only values of the point scale, comparing numerically', () => {
      const project = givenProject({ point_scale: '0,0.5,1,2.50' });
      const id = project.story();
      project.when(decideUpdateStory, { story_id: id, estimate: 0.5 });
      project.when(decideUpdateStory, { story_id: id, estimate: 2.5 });
      expect(project.doc(id).estimate).to.equal(2.5);
      const problems = problemsOf(project.rejected(decideUpdateStory, { story_id: id, estimate: 3 }));
      expect(problems.estimate).to.match(/not a valid estimate/);
    });

    it('refuses estimates on bugs and chores unless the project makes them estimable, and on releases', () => {
      const project = givenProject();
      const bug = project.story({ story_type: 'bug' });
      expect(problemsOf(project.rejected(decideUpdateStory, { story_id: bug, estimate: 1 })).estimate).to.equal(
        'Bugs and chores cannot be estimated in this project.',
      );
      const release = project.story({ story_type: 'release' });
      expect(problemsOf(project.rejected(decideUpdateStory, { story_id: release, estimate: 1 })).estimate).to.equal(
        'Releases cannot be estimated.',
      );
      const estimable = givenProject({ bugs_and_chores_are_estimatable: true });
      const chore = estimable.story({ story_type: 'chore' });
      estimable.when(decideUpdateStory, { story_id: chore, estimate: 3 });
      expect(estimable.doc(chore).estimate).to.equal(3);
    });

    it('requires an estimate for estimable stories in worked-on states', () => {
      const project = givenProject();
      const feature = project.story();
      for (const state of ['started', 'finished', 'delivered', 'accepted', 'rejected'] as const) {
        const error = project.rejected(decideUpdateStory, { story_id: feature, current_state: state });
        expect(error.details.general_problem).to.equal(`Stories in the ${state} state must be estimated.`);
        expect(problemsOf(error).estimate).to.equal(`Stories in the ${state} state must be estimated.`);
      }
      const bug = project.story({ story_type: 'bug' });
      project.when(decideUpdateStory, { story_id: bug, current_state: 'started' });
      expect(project.doc(bug).current_state).to.equal('started');
    });

    it('clears the estimate when the story becomes a type that cannot carry one', () => {
      const project = givenProject();
      const id = project.story({ estimate: 2 });
      const decision = project.when(decideUpdateStory, { story_id: id, story_type: 'chore' });
      expect(storyChange(decision.data.changes).new_values).to.deep.include({ story_type: 'chore', estimate: null });
    });

    it('does not re-check an old estimate when the edit does not touch it', () => {
      const project = givenProject({ point_scale: '0,1,2,3' });
      const id = project.story({ estimate: 3 });
      project.fold('project_update', [
        { kind: 'project', change_type: 'update', id: 7, original_values: { point_scale: '0,1,2,3' }, new_values: { point_scale: '0,1,2,4,8' } },
      ]);
      project.when(decideUpdateStory, { story_id: id, name: 'renamed' });
      expect(project.doc(id).name).to.equal('renamed');
    });
  });

  describe('states', () => {
    it('sets accepted_at on entering accepted and clears it (null) on leaving', () => {
      const project = givenProject();
      const id = project.story({ estimate: 1, current_state: 'delivered' });
      project.when(decideUpdateStory, { story_id: id, current_state: 'accepted' });
      const acceptedAt = project.now;
      expect(project.doc(id).accepted_at).to.equal(acceptedAt);
      const decision = project.when(decideUpdateStory, { story_id: id, current_state: 'rejected' });
      const change = storyChange(decision.data.changes);
      expect(change.original_values).to.deep.include({ current_state: 'accepted', accepted_at: acceptedAt });
      expect(change.new_values).to.deep.include({ current_state: 'rejected', accepted_at: null });
      expect(project.doc(id)).to.not.have.property('accepted_at');
    });

    it('keeps accepted_at on edits of an accepted story and refuses it on other states', () => {
      const project = givenProject();
      const id = project.story({ estimate: 1, current_state: 'accepted', accepted_at: T0 - 1000 });
      project.when(decideUpdateStory, { story_id: id, name: 'renamed' });
      expect(project.doc(id).accepted_at).to.equal(T0 - 1000);
      const other = project.story();
      expect(problemsOf(project.rejected(decideUpdateStory, { story_id: other, accepted_at: T0 }))).to.have.key('accepted_at');
    });

    it('allows deadlines on releases only, and only some states for releases', () => {
      const project = givenProject();
      const release = project.story({ story_type: 'release', deadline: T0 + 10 ** 9 });
      expect(project.doc(release).deadline).to.equal(T0 + 10 ** 9);
      const feature = project.story();
      expect(problemsOf(project.rejected(decideUpdateStory, { story_id: feature, deadline: T0 })).deadline).to.equal(
        'Only releases can have a deadline.',
      );
      expect(problemsOf(project.rejected(decideUpdateStory, { story_id: release, current_state: 'started' }))).to.have.key(
        'current_state',
      );
      project.when(decideUpdateStory, { story_id: release, current_state: 'accepted' });
      expect(project.doc(release).current_state).to.equal('accepted');
    });

    it('drops the deadline when a release becomes another type', () => {
      const project = givenProject();
      const release = project.story({ story_type: 'release', deadline: T0 });
      project.when(decideUpdateStory, { story_id: release, story_type: 'chore' });
      expect(project.doc(release)).to.not.have.property('deadline');
    });

    it('allows planned only in manually planned projects', () => {
      const automatic = givenProject();
      const id = automatic.story();
      expect(problemsOf(automatic.rejected(decideUpdateStory, { story_id: id, current_state: 'planned' }))).to.have.key('current_state');
      const manual = givenProject({ automatic_planning: false });
      const planned = manual.story();
      manual.when(decideUpdateStory, { story_id: planned, current_state: 'planned' });
      expect(manual.doc(planned).current_state).to.equal('planned');
    });

    it('reports several broken rules at once, one entry per field', () => {
      const project = givenProject();
      const id = project.story();
      const error = project.rejected(decideUpdateStory, { story_id: id, current_state: 'started', deadline: T0, name: '' });
      expect(problemsOf(error)).to.have.keys('name', 'estimate', 'deadline');
      const unknownState = project.rejected(decideUpdateStory, {
        story_id: id,
        current_state: 'None' as 'started',
        deadline: T0,
      });
      expect(problemsOf(unknownState)).to.have.keys('current_state');
    });
  });

  describe('rejection comment', () => {
    it('creates the comment in the rejection event and makes its writer a follower', () => {
      const project = givenProject();
      const id = project.story({ estimate: 1, current_state: 'delivered' });
      const before = project.doc(id);
      const decision = project.when(decideUpdateStory, { story_id: id, current_state: 'rejected', comment: { text: 'Not yet' } }, MEMBER);
      expect(decision.type).to.equal('story_update');
      expect(decision.data.changes.map((change) => change.kind)).to.deep.equal(['story', 'comment']);
      const [story, comment] = decision.data.changes;
      expect(story!.original_values).to.deep.equal({ current_state: 'delivered', follower_ids: [], updated_at: before.updated_at });
      expect(story!.new_values).to.deep.equal({ current_state: 'rejected', follower_ids: [MEMBER], updated_at: project.now });
      const stored = {
        id: comment!.id,
        story_id: id,
        text: 'Not yet',
        person_id: MEMBER,
        created_at: project.now,
        updated_at: project.now,
        file_attachment_ids: [],
        ext_attachment_ids: [],
        attachment_ids: [],
        ext_attachments: [],
      };
      expect(comment).to.deep.equal({
        kind: 'comment',
        change_type: 'create',
        id: comment!.id,
        new_values: { ...stored, file_attachments: [] },
      });
      expect(project.state.comments.get(comment!.id), 'nested attachments are not stored').to.deep.equal(stored);
    });

    it('leaves the followers alone when the writer already follows, and creates nothing for blank text', () => {
      const project = givenProject();
      const id = project.story({ estimate: 1, current_state: 'delivered', follower_ids: [OWNER] });
      const commented = project.when(decideUpdateStory, { story_id: id, current_state: 'rejected', comment: { text: 'Again' } });
      expect(commented.data.changes[0]!.new_values).to.not.have.property('follower_ids');
      expect(commented.data.changes.map((change) => change.kind)).to.deep.equal(['story', 'comment']);
      project.when(decideUpdateStory, { story_id: id, current_state: 'delivered' });
      const blank = project.when(decideUpdateStory, { story_id: id, current_state: 'rejected', comment: { text: '  ', file_attachments: [] } }, MEMBER);
      expect(blank.data.changes.map((change) => change.kind)).to.deep.equal(['story']);
      expect(project.doc(id).follower_ids).to.deep.equal([OWNER]);
    });

    it('goes with the story when the story is deleted', () => {
      const project = givenProject();
      const id = project.story({ estimate: 1, current_state: 'delivered' });
      const comment = project.when(decideUpdateStory, { story_id: id, current_state: 'rejected', comment: { text: 'No' } }).data.changes[1]!;
      const deleted = project.when(decideDeleteStory, { story_id: id });
      expect(deleted.data.changes.filter((change) => change.kind === 'comment').map((change) => [change.change_type, change.id])).to.deep.equal([
        ['delete', comment.id],
      ]);
      expect(project.state.comments.size).to.equal(0);
    });

    it('is refused without a rejection, with the wrong shape, with unknown attachments, or without a writer', () => {
      const project = givenProject();
      const id = project.story({ estimate: 1, current_state: 'delivered' });
      expect(problemsOf(project.rejected(decideUpdateStory, { story_id: id, comment: { text: 'x' } })).comment).to.equal(
        'A comment can only be sent when rejecting the story.',
      );
      const badShape = { story_id: id, current_state: 'rejected' as const, comment: { text: 42 as unknown as string } };
      expect(problemsOf(project.rejected(decideUpdateStory, badShape))).to.have.key('comment');
      const attached = { story_id: id, current_state: 'rejected' as const, comment: { text: 'x', file_attachments: [{ id: 5 }] } };
      expect(problemsOf(project.rejected(decideUpdateStory, attached)).comment).to.match(/upload the file first/);
      const byOperator = { story_id: id, current_state: 'rejected' as const, comment: { text: 'x' } };
      expect(problemsOf(project.rejected(decideUpdateStory, byOperator, null)).comment).to.equal('A comment needs a person to write it.');
    });
  });

  describe('people', () => {
    it('replaces owners without making them followers, and sets or drops the first owner with owned_by_id', () => {
      const project = givenProject();
      const id = project.story();
      const decision = project.when(decideUpdateStory, { story_id: id, owner_ids: [MEMBER] });
      expect(storyChange(decision.data.changes).new_values).to.deep.include({ owner_ids: [MEMBER] });
      expect(storyChange(decision.data.changes).new_values).not.to.have.property('follower_ids');
      project.when(decideUpdateStory, { story_id: id, owned_by_id: OWNER });
      expect(project.doc(id).owner_ids).to.deep.equal([OWNER, MEMBER]);
      project.when(decideUpdateStory, { story_id: id, owned_by_id: null });
      expect(project.doc(id).owner_ids).to.deep.equal([MEMBER]);
    });

    it('refuses people who are not members, but keeps former members already on the story', () => {
      const project = givenProject();
      const id = project.story({ owner_ids: [MEMBER] });
      expect(problemsOf(project.rejected(decideUpdateStory, { story_id: id, owner_ids: [STRANGER] }))).to.have.key('owner_ids');
      project.fold('project_membership_delete', [{ kind: 'project_membership', change_type: 'delete', id: 2 }]);
      project.when(decideUpdateStory, { story_id: id, owner_ids: [MEMBER, OWNER] });
      expect(project.doc(id).owner_ids).to.deep.equal([MEMBER, OWNER]);
    });

    it('adds and removes owners through the owners sub-resource', () => {
      const project = givenProject();
      const id = project.story();
      project.when(decideAddStoryOwner, { story_id: id, person_id: MEMBER });
      expect(project.doc(id).owner_ids).to.deep.equal([MEMBER]);
      project.when(decideRemoveStoryOwner, { story_id: id, person_id: MEMBER });
      expect(project.doc(id).owner_ids).to.deep.equal([]);
      expect(project.rejected(decideRemoveStoryOwner, { story_id: id, person_id: MEMBER }).code).to.equal('unfound_resource');
    });
  });

  describe('labels', () => {
    it('replaces labels with names (creating missing ones), in name order, and shows names beside ids', () => {
      const project = givenProject();
      const id = project.story({ labels: ['one'] });
      const decision = project.when(decideUpdateStory, { story_id: id, labels: ['Two', 'one'] });
      const change = storyChange(decision.data.changes);
      const two = project.state.labelNamed('two')!;
      const one = project.state.labelNamed('one')!;
      expect(change.original_values).to.deep.include({ label_ids: [one.id], labels: ['one'] });
      expect(change.new_values).to.deep.include({ label_ids: [one.id, two.id], labels: ['one', 'two'] });
      project.when(decideUpdateStory, { story_id: id, labels: [] });
      expect(project.doc(id).label_ids).to.deep.equal([]);
    });

    it('recounts the labels whose per-state counts move, and only those', () => {
      const project = givenProject();
      const id = project.story({ labels: ['a', 'b'], estimate: 2, current_state: 'unstarted' });
      const a = project.state.labelNamed('a')!.id;
      const decision = project.when(decideUpdateStory, { story_id: id, current_state: 'started' });
      const recounts = decision.data.changes.filter((change) => change.kind === 'label');
      expect(recounts.map((change) => change.name)).to.deep.equal(['a', 'b']);
      const next = recounts[0]!.new_values!.counts as StoryCounts;
      expect(next.number_of_stories_by_state).to.deep.include({ unstarted: 0, started: 1 });
      expect(next.sum_of_story_estimates_by_state).to.deep.include({ unstarted: 0, started: 2 });
      expect(project.label(a)!.counts).to.deep.equal(next);

      const rename = project.when(decideUpdateStory, { story_id: id, name: 'renamed' });
      expect(rename.data.changes.filter((change) => change.kind === 'label')).to.deep.equal([]);
      const zero = project.when(decideUpdateStory, { story_id: id, estimate: 0, label_ids: [a] });
      const zeroCounts = zero.data.changes.filter((change) => change.kind === 'label');
      expect(zeroCounts.map((change) => change.name)).to.deep.equal(['a', 'b']);
      const aCounts = project.label(a)!.counts!;
      expect(aCounts.number_of_zero_point_stories_by_state!.started).to.equal(1);
      expect(aCounts.sum_of_story_estimates_by_state!.started).to.equal(0);
    });

    it('adds a label by id or by name and removes it through the story labels sub-resource', () => {
      const project = givenProject();
      const id = project.story();
      const decision = project.when(decideAddStoryLabel, { story_id: id, label: { name: 'Ops' } });
      expect(decision.type).to.equal('story_update');
      const ops = project.state.labelNamed('ops')!;
      expect(project.doc(id).label_ids).to.deep.equal([ops.id]);
      project.when(decideAddStoryLabel, { story_id: id, label: { id: ops.id } });
      expect(project.doc(id).label_ids).to.deep.equal([ops.id]);
      project.when(decideRemoveStoryLabel, { story_id: id, label_id: ops.id });
      expect(project.doc(id).label_ids).to.deep.equal([]);
      expect(project.rejected(decideRemoveStoryLabel, { story_id: id, label_id: ops.id }).code).to.equal('unfound_resource');
    });
  });
});

describe('delete story', () => {
  it('deletes the story with its tasks, records original values and recounts its labels', () => {
    const project = givenProject();
    const id = project.story({ labels: ['x'], tasks: [{ description: 't' }] });
    const decision = project.when(decideDeleteStory, { story_id: id });
    expect(decision.type).to.equal('story_delete');
    const [story, ...rest] = decision.data.changes;
    expect(story).to.deep.include({ kind: 'story', change_type: 'delete', id, name: 'A story' });
    expect(story!.original_values).to.deep.include({ name: 'A story', current_state: 'unscheduled' });
    expect(rest.map((change) => `${change.kind}:${change.change_type}`).sort()).to.deep.equal(['label:update', 'task:delete']);
    expect(project.state.stories.has(id)).to.equal(false);
    expect(project.state.tasks.size).to.equal(0);
    const counts = project.state.labelNamed('x')!.counts!;
    expect(counts.number_of_stories_by_state!.unscheduled).to.equal(0);
  });

  it('is unfound for a missing story', () => {
    expect(givenProject().rejected(decideDeleteStory, { story_id: 1 }).code).to.equal('unfound_resource');
  });
});
