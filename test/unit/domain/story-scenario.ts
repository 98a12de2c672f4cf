// Given/when/then helpers for the story family's deciders: a project stream folded from events, a
// deterministic decision context (a clock that ticks one second per decision, sequential ids), and
// `when` / `rejected` that run a decider the way the command handler will (decide, then fold the
// decision as the next recorded event, or leave the state untouched when it throws).
import { expect } from 'chai';
import type { Decision, DecisionContext } from '../../../src/domain/decision.js';
import { DomainError } from '../../../src/domain/errors.js';
import { EVENT_SCHEMA } from '../../../src/domain/events.js';
import type { EventType, ResourceChange } from '../../../src/domain/events.js';
import { findStory } from '../../../src/domain/project-state.js';
import type { LabelDoc, ProjectDoc, StoryDoc, TaskDoc } from '../../../src/domain/project-state.js';
import { emptyState, evolve } from '../../../src/domain/resource-state.js';
import type { StreamState } from '../../../src/domain/resource-state.js';
import { decideCreateStory } from '../../../src/domain/story/create-story.js';
import type { CreateStoryInput } from '../../../src/domain/story/create-story.js';
import { orderedStories } from '../../../src/domain/story/story-order.js';

export const PROJECT_ID = 7;
export const OWNER = 100;
export const MEMBER = 101;
export const VIEWER = 102;
export const STRANGER = 999;
/** The clock's start; every decision happens one second after the previous one. */
export const T0 = Date.UTC(2024, 0, 1);

export type Decider<I> = (state: StreamState, input: I, context: DecisionContext) => Decision;

export class Scenario {
  readonly state: StreamState = emptyState(`project-${PROJECT_ID}`);
  now = T0;
  private nextIdValue = 1000;

  constructor(project: Partial<ProjectDoc>) {
    const members = [
      { id: 1, person_id: OWNER, role: 'owner' },
      { id: 2, person_id: MEMBER, role: 'member' },
      { id: 3, person_id: VIEWER, role: 'viewer' },
    ];
    this.fold('project_create', [
      {
        kind: 'project',
        change_type: 'create',
        id: PROJECT_ID,
        new_values: {
          name: 'Storyline',
          point_scale: '0,1,2,3',
          bugs_and_chores_are_estimatable: false,
          enable_tasks: true,
          automatic_planning: true,
          ...project,
        },
      },
      ...members.map(
        (member): ResourceChange => ({ kind: 'project_membership', change_type: 'create', id: member.id, new_values: member }),
      ),
    ]);
  }

  context(actorId: number | null = OWNER): DecisionContext {
    this.now += 1000;
    return {
      now: this.now,
      actorId,
      nextId: () => this.nextIdValue++,
    };
  }

  fold(type: EventType, changes: ResourceChange[]): void {
    const version = this.state.version + 1;
    evolve(this.state, {
      id: `event-${version}`,
      stream: this.state.stream,
      version,
      position: version,
      type,
      data: { changes, primary_resources: [] },
      meta: { schema: EVENT_SCHEMA, occurred_at: this.now, performed_by: OWNER, command_id: `command-${version}` },
    });
  }

  /** Decides and folds the decision; returns it. */
  when<I>(decide: Decider<I>, input: I, actorId: number | null = OWNER): Decision {
    const decision = decide(this.state, input, this.context(actorId));
    this.fold(decision.type, decision.data.changes);
    return decision;
  }

  /** Expects the decider to throw a DomainError and the state to stay as it was. */
  rejected<I>(decide: Decider<I>, input: I, actorId: number | null = OWNER): DomainError {
    const version = this.state.version;
    let error: unknown;
    try {
      decide(this.state, input, this.context(actorId));
    } catch (caught) {
      error = caught;
    }
    expect(error, 'the decision should have been rejected').to.be.instanceOf(DomainError);
    expect(this.state.version).to.equal(version);
    return error as DomainError;
  }

  /** Creates a story and returns its id. */
  story(input: Partial<CreateStoryInput> & { name?: string } = {}): number {
    const decision = this.when(decideCreateStory, { name: 'A story', ...input });
    return decision.data.changes[0]!.id;
  }

  doc(storyId: number): StoryDoc {
    const story = findStory(this.state, storyId);
    expect(story, `story ${storyId}`).to.not.equal(undefined);
    return story!;
  }

  label(id: number): LabelDoc | undefined {
    return this.state.docs.get('label')?.get(id) as LabelDoc | undefined;
  }

  task(id: number): TaskDoc | undefined {
    return this.state.docs.get('task')?.get(id) as TaskDoc | undefined;
  }

  /** Story ids from the top of the order to the bottom. */
  order(): number[] {
    return orderedStories(this.state).map((story) => story.id);
  }
}

export function givenProject(project: Partial<ProjectDoc> = {}): Scenario {
  return new Scenario(project);
}

/** The validation errors of a rejection, as { field: problem }. */
export function problemsOf(error: DomainError): Record<string, string> {
  expect(error.code).to.equal('invalid_parameter');
  return Object.fromEntries((error.details.validation_errors ?? []).map(({ field, problem }) => [field, problem]));
}
