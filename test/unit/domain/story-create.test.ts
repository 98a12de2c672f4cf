import { expect } from 'chai';
import { decideCreateStory } from '../../../src/domain/story/create-story.js';
import { storedValues } from '../../../src/domain/resource-state.js';
import { MEMBER, OWNER, PROJECT_ID, STRANGER, PROJECT_T0 as T0, VIEWER, givenProject, problemsOf } from './decider-scenario.js';

describe('create story', () => {
  it('applies the defaults and records the whole story, label names and neighbours in the create change', () => {
    const project = givenProject();
    const decision = project.when(decideCreateStory, { name: 'Log in' });
    expect(decision.type).to.equal('story_create');
    const [change] = decision.data.changes;
    const now = project.now;
    expect(change).to.deep.include({ kind: 'story', change_type: 'create', name: 'Log in', story_type: 'feature' });
    expect(change!.new_values).to.deep.equal({
      id: change!.id,
      project_id: PROJECT_ID,
      name: 'Log in',
      story_type: 'feature',
      current_state: 'unscheduled',
      story_priority: 'p3',
      requested_by_id: OWNER,
      owner_ids: [],
      follower_ids: [], // requesting does not make a follower (issue 11 item 5)
      label_ids: [],
      blocked_story_ids: [],
      created_at: now,
      updated_at: now,
      before_id: null,
      after_id: null,
      labels: [],
    });
    expect(decision.data.primary_resources).to.deep.equal([
      { kind: 'story', id: change!.id, name: 'Log in', story_type: 'feature', story_priority: 'p3' },
    ]);
    const stored = project.doc(change!.id);
    expect(stored).to.not.have.any.keys('labels', 'before_id', 'after_id', 'url');
    expect(stored.rank).to.be.a('string');
  });

  it('keeps every attribute it is given', () => {
    const project = givenProject({ bugs_and_chores_are_estimatable: true });
    const id = project.story({
      name: 'Crash on save',
      description: 'Steps...',
      story_type: 'bug',
      current_state: 'started',
      estimate: 2,
      story_priority: 'p1',
      requested_by_id: MEMBER,
      owner_ids: [MEMBER, OWNER],
      external_id: 'JIRA-7',
      integration_id: 12,
      created_at: T0 - 86_400_000,
    });
    expect(project.doc(id)).to.deep.include({
      description: 'Steps...',
      story_type: 'bug',
      current_state: 'started',
      estimate: 2,
      story_priority: 'p1',
      requested_by_id: MEMBER,
      owner_ids: [MEMBER, OWNER],
      follower_ids: [], // nor does owning
      external_id: 'JIRA-7',
      integration_id: 12,
      created_at: T0 - 86_400_000,
    });
  });

  it('makes owned_by_id the first owner', () => {
    const project = givenProject();
    const id = project.story({ owner_ids: [OWNER], owned_by_id: MEMBER });
    expect(project.doc(id).owner_ids).to.deep.equal([MEMBER, OWNER]);
  });

  it('sets accepted_at when created accepted, or keeps the one the client sent', () => {
    const project = givenProject();
    const now = project.story({ current_state: 'accepted', estimate: 1 });
    expect(project.doc(now).accepted_at).to.equal(project.now);
    const earlier = project.story({ current_state: 'accepted', estimate: 1, accepted_at: T0 - 5000 });
    expect(project.doc(earlier).accepted_at).to.equal(T0 - 5000);
  });

  it('creates labels given by name (lower case, once), reuses existing ones regardless of case, and counts them', () => {
    const project = givenProject();
    project.story({ labels: ['Backend'] });
    const decision = project.when(decideCreateStory, {
      name: 'Second',
      labels: ['BACKEND', { name: 'Needs Design' }, 'needs design'],
      estimate: 2,
    });
    const [storyChange, ...others] = decision.data.changes;
    expect(storyChange!.new_values!.labels).to.deep.equal(['backend', 'needs design']);
    const created = others.find((change) => change.kind === 'label' && change.change_type === 'create')!;
    expect(created.new_values).to.deep.include({ name: 'needs design', project_id: PROJECT_ID });
    const counts = created.new_values!.counts as Record<string, Record<string, number>>;
    expect(counts.number_of_stories_by_state!.unscheduled).to.equal(1);
    expect(counts.sum_of_story_estimates_by_state!.unscheduled).to.equal(2);
    const recount = others.find((change) => change.kind === 'label' && change.change_type === 'update')!;
    expect(recount.name).to.equal('backend');
    expect((recount.new_values!.counts as typeof counts).number_of_stories_by_state!.unscheduled).to.equal(2);
    expect(others.filter((change) => change.change_type === 'create')).to.have.length(1);
  });

  it('rejects label ids that do not exist', () => {
    const project = givenProject();
    expect(problemsOf(project.rejected(decideCreateStory, { name: 'x', label_ids: [4242] }))).to.have.key('label_ids');
    expect(problemsOf(project.rejected(decideCreateStory, { name: 'x', labels: [{ id: 4242 }] }))).to.have.key('labels');
  });

  it('creates nested tasks at positions 1..n and records their creates', () => {
    const project = givenProject();
    const decision = project.when(decideCreateStory, {
      name: 'With tasks',
      tasks: [{ description: 'first' }, { description: 'second', complete: true }],
    });
    const tasks = decision.data.changes.filter((change) => change.kind === 'task');
    expect(tasks.map((task) => [task.new_values!.description, task.new_values!.position, task.new_values!.complete])).to.deep.equal([
      ['first', 1, false],
      ['second', 2, true],
    ]);
    expect(project.task(tasks[0]!.id)!.story_id).to.equal(decision.subject.id);
  });

  it('refuses nested tasks when tasks are disabled, and blank task descriptions', () => {
    expect(problemsOf(givenProject({ enable_tasks: false }).rejected(decideCreateStory, { name: 'x', tasks: [{ description: 'a' }] }))).to.have.key('tasks');
    const error = givenProject().rejected(decideCreateStory, { name: 'x', tasks: [{ description: '  ' }] });
    expect(problemsOf(error).tasks).to.equal("Description can't be blank");
  });

  it('only lets project members request, own or follow', () => {
    const project = givenProject();
    const error = project.rejected(decideCreateStory, {
      name: 'x',
      requested_by_id: STRANGER,
      owner_ids: [STRANGER],
      follower_ids: [STRANGER, VIEWER],
    });
    expect(problemsOf(error)).to.have.keys('requested_by_id', 'owner_ids', 'follower_ids');
  });

  it('bounds created_at to 2005-01-01 .. now', () => {
    const project = givenProject();
    expect(problemsOf(project.rejected(decideCreateStory, { name: 'x', created_at: Date.UTC(2004, 11, 31) }))).to.have.key('created_at');
    expect(problemsOf(project.rejected(decideCreateStory, { name: 'x', created_at: T0 + 10 ** 9 }))).to.have.key('created_at');
    expect(project.doc(project.story({ created_at: Date.UTC(2005, 0, 1) })).created_at).to.equal(Date.UTC(2005, 0, 1));
  });

  it('needs a name', () => {
    expect(problemsOf(givenProject().rejected(decideCreateStory, { name: ' ' })).name).to.equal("Name can't be blank");
  });

  it('needs a requester when no person acts', () => {
    const error = givenProject().rejected(decideCreateStory, { name: 'x' }, null);
    expect(problemsOf(error)).to.have.key('requested_by_id');
  });

  it('stores what the change says: folding the change gives the stored document', () => {
    const project = givenProject();
    const decision = project.when(decideCreateStory, { name: 'x', labels: ['a'] });
    const change = decision.data.changes[0]!;
    expect({ id: change.id, ...storedValues('story', change.new_values).set, rank: change.rank }).to.deep.equal(project.doc(change.id));
  });
});
