import { emptyState } from '../../../src/domain/decision-states.js';
import { expect } from 'chai';
import { DomainError } from '../../../src/domain/errors.js';
import { EVENT_SCHEMA, streams, type EventType, type ResourceChange } from '../../../src/domain/events.js';
import type { StoryDoc } from '../../../src/domain/project-documents.js';
import type { ProjectState } from '../../../src/domain/project-state.js';
import { decideCreateStory } from '../../../src/domain/story/create-story.js';
import { decideMoveStoryIn, decideMoveStoryOut, holdsStory, storyMoveSnapshot } from '../../../src/domain/story/move-story.js';
import { orderedStories } from '../../../src/domain/story/story-order.js';
import { MEMBER, OWNER, PROJECT_ID, givenProject } from './decider-scenario.js';

const TARGET_ID = 8;

/** A second project stream, folded by hand (the Scenario holds project 7). */
function targetProject(settings: Record<string, unknown> = {}): { state: ProjectState; fold(type: string, changes: ResourceChange[]): void } {
  const state = emptyState(streams.project(TARGET_ID));
  const fold = (type: EventType, changes: ResourceChange[]) => {
    const version = state.version + 1;
    state.evolve({
      id: `t-${version}`, stream: state.stream, version, position: version, type,
      data: { changes, primary_resources: [] },
      meta: { schema: EVENT_SCHEMA, occurred_at: 0, performed_by: OWNER, command_id: `t-${version}` },
    });
  };
  fold('project_create', [
    {
      kind: 'project', change_type: 'create', id: TARGET_ID,
      new_values: { name: 'Target', point_scale: '0,1,2,3', bugs_and_chores_are_estimatable: false, enable_tasks: true, automatic_planning: true, ...settings },
    },
    { kind: 'project_membership', change_type: 'create', id: 50, new_values: { person_id: OWNER, role: 'owner' } },
  ]);
  return { state, fold };
}

let ids = 5000;
const context = (now = Date.UTC(2024, 1, 1)) => ({ now, actorId: OWNER, nextId: () => ids++ });

describe('move story to another project', () => {
  it('creates the story, its tasks and its labels (matched by name) in the target, at the top of its Icebox', () => {
    const source = givenProject();
    const id = source.story({ labels: ['Shared', 'only-here'], tasks: [{ description: 'pack' }, { description: 'go' }], owner_ids: [MEMBER] });
    const target = targetProject();
    const existing = decideCreateStory({ name: 'resident', labels: ['shared'] }, target.state, context());
    target.fold(existing.type, existing.data.changes);

    const decision = decideMoveStoryIn(storyMoveSnapshot(source.state, id), target.state, context());
    expect(decision.type).to.equal('story_move_into_project');
    expect(decision.data.secondary_resources).to.deep.equal([{ kind: 'project', id: PROJECT_ID, name: 'Storyline' }]);
    const kinds = decision.data.changes.map((change) => `${change.kind}:${change.change_type}`);
    expect(kinds).to.deep.equal(['story:create', 'label:create', 'label:update', 'task:create', 'task:create']);
    target.fold(decision.type, decision.data.changes);

    const moved = target.state.stories.get(id)!;
    const shared = target.state.labelNamed('shared')!;
    const created = target.state.labelNamed('only-here')!;
    expect(moved).to.deep.include({ project_id: TARGET_ID, name: 'A story', owner_ids: [MEMBER], label_ids: [created.id, shared.id] });
    expect(orderedStories(target.state).map((story) => story.id)).to.deep.equal([id, existing.subject.id]);
    expect(shared.counts!.number_of_stories_by_state.unscheduled).to.equal(2);
    expect([...target.state.tasks].map((task) => [task.description, task.position, task.story_id])).to.deep.equal([
      ['pack', 1, id],
      ['go', 2, id],
    ]);
    expect(holdsStory(target.state, id)).to.equal(true);
  });

  it('places the story by its state in the target (started: into Current)', () => {
    const source = givenProject();
    const id = source.story({ current_state: 'started', estimate: 1 });
    const target = targetProject();
    const waiting = decideCreateStory({ name: 'backlog', current_state: 'unstarted' }, target.state, context());
    target.fold(waiting.type, waiting.data.changes);
    const decision = decideMoveStoryIn(storyMoveSnapshot(source.state, id), target.state, context());
    target.fold(decision.type, decision.data.changes);
    expect(orderedStories(target.state).map((story: StoryDoc) => story.id)).to.deep.equal([id, waiting.subject.id]);
  });

  it('refuses a story the target cannot hold, a story it already holds, and the same project', () => {
    const source = givenProject();
    const id = source.story({ estimate: 3 });
    const small = targetProject({ point_scale: '0,1,2' });
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).to.be.instanceOf(DomainError);
        return (error as DomainError).details.validation_errors![0]!.field;
      }
      throw new Error('expected a rejection');
    };
    expect(refused(() => decideMoveStoryIn(storyMoveSnapshot(source.state, id), small.state, context()))).to.equal('estimate');
    expect(refused(() => decideMoveStoryIn(storyMoveSnapshot(source.state, id), source.state, context()))).to.equal('project_id');
    const target = targetProject();
    const first = decideMoveStoryIn(storyMoveSnapshot(source.state, id), target.state, context());
    target.fold(first.type, first.data.changes);
    expect(refused(() => decideMoveStoryIn(storyMoveSnapshot(source.state, id), target.state, context()))).to.equal('project_id');
    expect(refused(() => decideMoveStoryOut({ story_id: id, target_project_id: PROJECT_ID, target_project_name: 'Storyline' }, source.state, context()))).to.equal('project_id');
  });

  it('deletes the story and its contents from the source, recounting its labels', () => {
    const source = givenProject();
    const id = source.story({ labels: ['x'], tasks: [{ description: 't' }] });
    const decision = source.when(decideMoveStoryOut, { story_id: id, target_project_id: TARGET_ID, target_project_name: 'Target' });
    expect(decision.type).to.equal('story_move_from_project');
    expect(decision.data.secondary_resources).to.deep.equal([{ kind: 'project', id: TARGET_ID, name: 'Target' }]);
    expect(decision.data.changes.map((change) => `${change.kind}:${change.change_type}`).sort()).to.deep.equal(['label:update', 'story:delete', 'task:delete']);
    expect(source.state.stories.get(id)).to.equal(undefined);
    expect(source.state.labelNamed('x')!.counts!.number_of_stories_by_state.unscheduled).to.equal(0);
    expect(source.rejected(decideMoveStoryOut, { story_id: id, target_project_id: TARGET_ID, target_project_name: 'Target' }).code).to.equal('unfound_resource');
  });
});
