import { expect } from 'chai';
import { decideCreateTask } from '../../../src/domain/task/create-task.js';
import { decideDeleteTask } from '../../../src/domain/task/delete-task.js';
import { decideUpdateTask } from '../../../src/domain/task/update-task.js';
import type { Decision } from '../../../src/domain/decision.js';
import { givenProject, problemsOf } from './decider-scenario.js';
import type { Scenario } from './decider-scenario.js';

function taskNames(decision: Decision): Array<[number, string | undefined]> {
  return decision.data.changes.filter((change) => change.kind === 'task').map((change) => [change.id, change.name]);
}

function descriptions(project: Scenario, storyId: number): string[] {
  return project.state.tasksOf(storyId).map((task) => `${task.position}:${task.description}`);
}

describe('tasks', () => {
  it('creates a task last by default, recording the task and a touch of the story', () => {
    const project = givenProject();
    const story = project.story();
    const storyUpdatedAt = project.doc(story).updated_at;
    const decision = project.when(decideCreateTask, { story_id: story, description: 'write it' });
    expect(decision.type).to.equal('task_create');
    const [task, touch] = decision.data.changes;
    expect(task!.new_values).to.deep.equal({
      id: task!.id,
      story_id: story,
      description: 'write it',
      complete: false,
      position: 1,
      created_at: project.now,
      updated_at: project.now,
    });
    expect(touch).to.deep.include({ kind: 'story', change_type: 'update', id: story });
    expect(touch!.original_values).to.deep.equal({ updated_at: storyUpdatedAt });
    expect(touch!.new_values).to.deep.equal({ updated_at: project.now });
    expect(decision.data.primary_resources[0]).to.deep.include({ kind: 'story', id: story });
    expect(project.doc(story).updated_at).to.equal(project.now);
  });

  it('inserts at a position and shifts the tasks below, recording each shift', () => {
    const project = givenProject();
    const story = project.story({ tasks: [{ description: 'a' }, { description: 'b' }] });
    const decision = project.when(decideCreateTask, { story_id: story, description: 'new', position: 1 });
    expect(descriptions(project, story)).to.deep.equal(['1:new', '2:a', '3:b']);
    const shifts = decision.data.changes.filter((change) => change.kind === 'task' && change.change_type === 'update');
    expect(shifts.map((change) => [change.original_values!.position, change.new_values!.position])).to.deep.equal([[1, 2], [2, 3]]);
  });

  it('bounds positions with the messages of the real service', () => {
    const project = givenProject();
    const story = project.story({ tasks: [{ description: 'a' }] });
    const tooFar = problemsOf(project.rejected(decideCreateTask, { story_id: story, description: 'x', position: 3 }));
    expect(tooFar.position).to.equal('Task position can not be greater than the number of tasks in the story plus 1');
    expect(problemsOf(project.rejected(decideCreateTask, { story_id: story, description: 'x', position: 0 }))).to.have.key('position');
    const task = project.state.tasksOf(story)[0]!.id;
    const moveTooFar = problemsOf(project.rejected(decideUpdateTask, { story_id: story, task_id: task, position: 2 }));
    expect(moveTooFar.position).to.equal('Task position can not be greater than the number of tasks in the story');
  });

  it('requires a description of at most 1000 characters', () => {
    const project = givenProject();
    const story = project.story();
    const blank = project.rejected(decideCreateTask, { story_id: story, description: '' });
    expect(blank.details.general_problem).to.equal("Description can't be blank");
    const long = project.rejected(decideCreateTask, { story_id: story, description: 'x'.repeat(1001) });
    expect(long.details.requirement).to.equal("'description' parameter must be 1000 characters or less.");
    project.when(decideCreateTask, { story_id: story, description: 'x'.repeat(1000) });
  });

  it('refuses task writes when the project has tasks turned off', () => {
    const project = givenProject({ enable_tasks: false });
    const story = project.story();
    expect(problemsOf(project.rejected(decideCreateTask, { story_id: story, description: 'x' }))).to.have.key('enable_tasks');
  });

  it('updates description and completion, recording only what changed', () => {
    const project = givenProject();
    const story = project.story({ tasks: [{ description: 'a' }] });
    const task = project.state.tasksOf(story)[0]!;
    const decision = project.when(decideUpdateTask, { story_id: story, task_id: task.id, complete: true });
    expect(decision.type).to.equal('task_update');
    expect(decision.data.changes[0]!.original_values).to.deep.equal({ complete: false, updated_at: task.updated_at });
    expect(decision.data.changes[0]!.new_values).to.deep.equal({ complete: true, updated_at: project.now });
  });

  it('moves a task up or down and keeps positions dense', () => {
    const project = givenProject();
    const story = project.story({ tasks: ['a', 'b', 'c', 'd'].map((description) => ({ description })) });
    const [a, , , d] = project.state.tasksOf(story);
    project.when(decideUpdateTask, { story_id: story, task_id: d!.id, position: 2 });
    expect(descriptions(project, story)).to.deep.equal(['1:a', '2:d', '3:b', '4:c']);
    project.when(decideUpdateTask, { story_id: story, task_id: a!.id, position: 4 });
    expect(descriptions(project, story)).to.deep.equal(['1:d', '2:b', '3:c', '4:a']);
  });

  it('names every task change by the task description after the write', () => {
    const project = givenProject();
    const story = project.story({ tasks: [{ description: 'a' }] });
    const created = project.when(decideCreateTask, { story_id: story, description: 'b', position: 1 });
    const [b, a] = project.state.tasksOf(story);
    expect(taskNames(created)).to.deep.equal([[b!.id, 'b'], [a!.id, 'a']]);
    const completed = project.when(decideUpdateTask, { story_id: story, task_id: b!.id, complete: true });
    expect(taskNames(completed)).to.deep.equal([[b!.id, 'b']]);
    const rewritten = project.when(decideUpdateTask, { story_id: story, task_id: b!.id, description: 'B', position: 2 });
    expect(taskNames(rewritten)).to.deep.equal([[b!.id, 'B'], [a!.id, 'a']]);
    const deleted = project.when(decideDeleteTask, { story_id: story, task_id: a!.id });
    expect(taskNames(deleted)).to.deep.equal([[a!.id, 'a'], [b!.id, 'B']]);
  });

  it('deletes a task and closes the gap', () => {
    const project = givenProject();
    const story = project.story({ tasks: ['a', 'b', 'c'].map((description) => ({ description })) });
    const b = project.state.tasksOf(story)[1]!;
    const decision = project.when(decideDeleteTask, { story_id: story, task_id: b.id });
    expect(decision.type).to.equal('task_delete');
    expect(decision.data.changes[0]).to.deep.include({ kind: 'task', change_type: 'delete', id: b.id });
    expect(descriptions(project, story)).to.deep.equal(['1:a', '2:c']);
  });

  it('is unfound for a task of another story', () => {
    const project = givenProject();
    const one = project.story({ tasks: [{ description: 'a' }] });
    const other = project.story();
    const task = project.state.tasksOf(one)[0]!.id;
    expect(project.rejected(decideUpdateTask, { story_id: other, task_id: task, complete: true }).code).to.equal('unfound_resource');
    expect(project.rejected(decideDeleteTask, { story_id: other, task_id: task }).code).to.equal('unfound_resource');
  });
});
