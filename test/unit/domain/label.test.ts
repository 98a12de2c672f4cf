import { expect } from 'chai';
import { decideCreateLabel } from '../../../src/domain/label/create-label.js';
import { decideDeleteLabel } from '../../../src/domain/label/delete-label.js';
import { decideRenameLabel } from '../../../src/domain/label/rename-label.js';
import { emptyStoryCounts, recount } from '../../../src/domain/label/label-counts.js';
import { decideUpdateStory } from '../../../src/domain/story/update-story.js';
import { PROJECT_ID, givenProject, problemsOf } from './decider-scenario.js';

describe('labels', () => {
  it('creates a label in lower case with zero counts over all eight states', () => {
    const project = givenProject();
    const decision = project.when(decideCreateLabel, { name: '  Needs QA ' });
    expect(decision.type).to.equal('label_create');
    const change = decision.data.changes[0]!;
    expect(change).to.deep.include({ kind: 'label', change_type: 'create', name: 'needs qa' });
    expect(change.new_values).to.deep.include({ id: change.id, project_id: PROJECT_ID, name: 'needs qa', created_at: project.now, updated_at: project.now });
    const counts = change.new_values!.counts as ReturnType<typeof emptyStoryCounts>;
    expect(counts.kind).to.equal('story_counts');
    expect(Object.keys(counts.number_of_stories_by_state).filter((key) => key !== 'kind')).to.have.members([
      'unscheduled', 'unstarted', 'planned', 'started', 'finished', 'delivered', 'accepted', 'rejected',
    ]);
    expect(counts.number_of_stories_by_state.kind).to.equal('counts_by_story_state');
    expect(decision.data.primary_resources).to.deep.equal([{ kind: 'label', id: change.id, name: 'needs qa' }]);
  });

  it('keeps names unique per project regardless of case, and requires one', () => {
    const project = givenProject();
    project.when(decideCreateLabel, { name: 'ops' });
    expect(problemsOf(project.rejected(decideCreateLabel, { name: 'OPS' })).name).to.equal('Name has already been taken');
    expect(problemsOf(project.rejected(decideCreateLabel, { name: ' ' })).name).to.equal("Name can't be blank");
  });

  it('renames a label, allowing a change of its own case only in storage form', () => {
    const project = givenProject();
    const ops = project.when(decideCreateLabel, { name: 'ops' }).subject.id;
    project.when(decideCreateLabel, { name: 'dev' });
    expect(problemsOf(project.rejected(decideRenameLabel, { label_id: ops, name: 'Dev' })).name).to.equal('Name has already been taken');
    const decision = project.when(decideRenameLabel, { label_id: ops, name: 'Operations' });
    expect(decision.type).to.equal('label_update');
    expect(decision.data.changes[0]!.original_values).to.deep.include({ name: 'ops' });
    expect(decision.data.changes[0]!.new_values).to.deep.include({ name: 'operations', updated_at: project.now });
    expect(project.label(ops)!.name).to.equal('operations');
    const same = project.when(decideRenameLabel, { label_id: ops, name: 'OPERATIONS' });
    expect(Object.keys(same.data.changes[0]!.new_values!)).to.deep.equal(['updated_at']);
    expect(project.rejected(decideRenameLabel, { label_id: 4242, name: 'x' }).code).to.equal('unfound_resource');
  });

  it('deletes a label and takes it off the stories that carry it', () => {
    const project = givenProject();
    const tagged = project.story({ labels: ['doomed', 'kept'] });
    const untouched = project.story({ labels: ['kept'] });
    const doomed = project.state.labelNamed('doomed')!.id;
    const kept = project.state.labelNamed('kept')!.id;
    const decision = project.when(decideDeleteLabel, { label_id: doomed });
    expect(decision.type).to.equal('label_delete');
    expect(decision.data.changes.map((change) => `${change.kind}:${change.change_type}:${change.id}`)).to.deep.equal([
      `label:delete:${doomed}`,
      `story:update:${tagged}`,
    ]);
    expect(decision.data.changes[1]!.new_values).to.deep.equal({ label_ids: [kept], labels: ['kept'], updated_at: project.now });
    expect(project.doc(tagged).label_ids).to.deep.equal([kept]);
    expect(project.doc(untouched).label_ids).to.deep.equal([kept]);
    expect(project.label(doomed)).to.equal(undefined);
  });

  it("refuses to delete an epic's label", () => {
    const project = givenProject();
    const label = project.when(decideCreateLabel, { name: 'epic one' }).subject.id;
    project.fold('epic_create', [{ kind: 'epic', change_type: 'create', id: 1, new_values: { name: 'Epic one', label_id: label } }]);
    expect(problemsOf(project.rejected(decideDeleteLabel, { label_id: label }))).to.have.key('label_id');
  });

  it('counts stories, estimates and zero-point stories per state, without rounding residue', () => {
    const story = (current_state: 'started' | 'accepted', estimate?: number) => ({ current_state, label_ids: [1], ...(estimate === undefined ? {} : { estimate }) });
    let counts = emptyStoryCounts();
    counts = recount(counts, null, story('started', 0.1));
    counts = recount(counts, null, story('started', 0.2));
    counts = recount(counts, null, story('started', 0));
    counts = recount(counts, null, story('accepted'));
    counts = recount(counts, story('started', 0.1), story('accepted', 0.1));
    expect(counts.number_of_stories_by_state).to.deep.include({ started: 2, accepted: 2 });
    expect(counts.sum_of_story_estimates_by_state).to.deep.include({ started: 0.2, accepted: 0.1 });
    expect(counts.number_of_zero_point_stories_by_state).to.deep.include({ started: 1, accepted: 0 });
  });

  it('moves the counts of a label with the stories that gain or lose it', () => {
    const project = givenProject();
    const id = project.story({ labels: ['a'], estimate: 3 });
    const a = project.state.labelNamed('a')!.id;
    const b = project.when(decideCreateLabel, { name: 'b' }).subject.id;
    project.when(decideUpdateStory, { story_id: id, label_ids: [b] });
    const countsOf = (labelId: number) => project.label(labelId)!.counts!;
    expect(countsOf(a).number_of_stories_by_state.unscheduled).to.equal(0);
    expect(countsOf(a).sum_of_story_estimates_by_state.unscheduled).to.equal(0);
    expect(countsOf(b).number_of_stories_by_state.unscheduled).to.equal(1);
    expect(countsOf(b).sum_of_story_estimates_by_state.unscheduled).to.equal(3);
  });
});
