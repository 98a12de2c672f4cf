// Given / when / then for every decider, run the way the command handler runs it: given past decisions
// (folded as recorded events), when a decider decides a command at a time by an actor, then it yields
// an event (folded as the stream's next one) or rejects with a domain error and leaves the state as it
// was. `new Scenario(stream)` starts an empty stream; `givenProject()` a project with three members and
// a clock that ticks one second per decision, plus the story-family look-ups (`story`, `doc`, `order`).
import { expect } from 'chai';
import type { Decider, Decision, DecisionContext, IdKind } from '../../../src/domain/decision.js';
import { DomainError } from '../../../src/domain/errors.js';
import { emptyState } from '../../../src/domain/decision-states.js';
import { EVENT_SCHEMA, type EventType, type ResourceChange, type StreamName } from '../../../src/domain/events.js';
import type { ProjectState } from '../../../src/domain/project-state.js';
import type { LabelDoc, ProjectDoc, StoryDoc, TaskDoc } from '../../../src/domain/project-documents.js';
import type { StreamState } from '../../../src/domain/resource-state.js';
import { decideCreateStory, type CreateStoryInput } from '../../../src/domain/story/create-story.js';
import { orderedStories } from '../../../src/domain/story/story-order.js';

/** The clock of `new Scenario(stream)`: fixed unless a decision says otherwise. */
export const T0 = Date.UTC(2024, 0, 8, 12, 0, 0); // a Monday

/** The project of `givenProject()`, its members, and its clock's start (one second later per decision). */
export const PROJECT_ID = 7;
export const OWNER = 100;
export const MEMBER = 101;
export const VIEWER = 102;
export const STRANGER = 999;
export const PROJECT_T0 = Date.UTC(2024, 0, 1);

/** When a decision happens and who makes it; a bare number or null is the actor. */
export type When = { now?: number; actorId?: number | null } | number | null;

export interface ScenarioOptions {
  /** The clock before the first decision. */
  start?: number;
  /** How far the clock moves before each decision (0: it stands still). */
  tickMs?: number;
  /** The actor of decisions that name none. */
  actorId?: number | null;
}

export class Scenario<S extends StreamState = ProjectState> {
  readonly state: S;
  now: number;
  private readonly tickMs: number;
  private readonly defaultActor: number | null;
  private readonly ids = new Map<IdKind, number>();

  constructor(stream: StreamName<S>, options: ScenarioOptions = {}) {
    this.state = emptyState(stream);
    this.now = options.start ?? T0;
    this.tickMs = options.tickMs ?? 0;
    this.defaultActor = options.actorId ?? null;
  }

  /** The context of the next decision: the clock moves on, ids are sequential per kind. */
  context(when: When = {}): DecisionContext {
    const { now, actorId } = typeof when === 'object' && when !== null ? when : { now: undefined, actorId: when };
    this.now = now ?? this.now + this.tickMs;
    const ids = this.ids;
    return {
      now: this.now,
      actorId: actorId === undefined ? this.defaultActor : actorId,
      nextId(kind) {
        const next = (ids.get(kind) ?? 100) + 1;
        ids.set(kind, next);
        return next;
      },
    };
  }

  /** Runs a decider without folding its decision. */
  decide<C>(decider: Decider<C, S>, command: C, when: When = {}): Decision {
    return decider(command, this.state, this.context(when));
  }

  /** Runs a decider and folds its decision as the stream's next event; returns the decision. */
  when<C>(decider: Decider<C, S>, command: C, when: When = {}): Decision {
    const decision = this.decide(decider, command, when);
    this.fold(decision.type, decision.data.changes);
    return decision;
  }

  /** `when`, for the history a test starts from. */
  given<C>(decider: Decider<C, S>, command: C, when: When = {}): this {
    this.when(decider, command, when);
    return this;
  }

  /** Expects the decider to throw a DomainError and the state to stay as it was; returns the error. */
  rejected<C>(decider: Decider<C, S>, command: C, when: When = {}): DomainError {
    const version = this.state.version;
    let caught: unknown;
    try {
      this.decide(decider, command, when);
    } catch (error) {
      caught = error;
    }
    expect(caught, 'the decision should have been rejected').to.be.instanceOf(DomainError);
    expect(this.state.version).to.equal(version);
    return caught as DomainError;
  }

  /** Expects a rejection with `code` (and, when given, a validation problem on `field`). */
  rejects<C>(decider: Decider<C, S>, command: C, code: string, field?: string, when: When = {}): DomainError {
    const error = this.rejected(decider, command, when);
    expect(error.code).to.equal(code);
    if (field) expect(error.details.validation_errors?.map((e) => e.field)).to.include(field);
    return error;
  }

  /** Folds an event made of `changes` as the stream's next one. */
  fold(type: EventType, changes: ResourceChange[]): void {
    const version = this.state.version + 1;
    this.state.evolve({
      id: `event-${version}`,
      stream: this.state.stream,
      version,
      position: version,
      type,
      data: { changes, primary_resources: [] },
      meta: { schema: EVENT_SCHEMA, occurred_at: this.now, performed_by: this.defaultActor, command_id: `command-${version}` },
    });
  }

  // ---- look-ups on a project stream ----

  /** Creates a story and returns its id. */
  story(this: Scenario, input: Partial<CreateStoryInput> & { name?: string } = {}): number {
    return this.when(decideCreateStory, { name: 'A story', ...input }).subject.id;
  }

  doc(this: Scenario, storyId: number): StoryDoc {
    const story = this.state.stories.get(storyId);
    expect(story, `story ${storyId}`).to.not.equal(undefined);
    return story!;
  }

  label(this: Scenario, id: number): LabelDoc | undefined {
    return this.state.labels.get(id);
  }

  task(this: Scenario, id: number): TaskDoc | undefined {
    return this.state.tasks.get(id);
  }

  /** Story ids from the top of the order to the bottom. */
  order(this: Scenario): number[] {
    return orderedStories(this.state).map((story) => story.id);
  }
}

/** Project 7 with an owner, a member and a viewer; decisions by the owner unless said otherwise. */
export function givenProject(project: Partial<ProjectDoc> = {}): Scenario {
  const scenario = new Scenario(`project-${PROJECT_ID}`, { start: PROJECT_T0, tickMs: 1000, actorId: OWNER });
  const members = [
    { id: 1, person_id: OWNER, role: 'owner' },
    { id: 2, person_id: MEMBER, role: 'member' },
    { id: 3, person_id: VIEWER, role: 'viewer' },
  ];
  scenario.fold('project_create', [
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
    ...members.map((member): ResourceChange => ({ kind: 'project_membership', change_type: 'create', id: member.id, new_values: member })),
  ]);
  return scenario;
}

/** The validation errors of a rejection, as { field: problem }. */
export function problemsOf(error: DomainError): Record<string, string> {
  expect(error.code).to.equal('invalid_parameter');
  return Object.fromEntries((error.details.validation_errors ?? []).map(({ field, problem }) => [field, problem]));
}
