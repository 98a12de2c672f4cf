// A project's history built through the real deciders: each decision is folded into the stream state
// and kept as the event to append, at the time the test names (the decision context's clock).
import { emptyState } from '../../../src/domain/decision-states.js';
import type { Decision, DecisionContext } from '../../../src/domain/decision.js';
import { EVENT_SCHEMA, streams, type NewEvent } from '../../../src/domain/events.js';
import { decideSetIterationOverride } from '../../../src/domain/iteration/iteration-override.js';
import { decideCreateProject } from '../../../src/domain/project/create-project.js';
import type { ProjectState } from '../../../src/domain/project-state.js';
import { decideCreateStory, type CreateStoryInput } from '../../../src/domain/story/create-story.js';
import { decideUpdateStory, type UpdateStoryInput } from '../../../src/domain/story/update-story.js';

export const OWNER_ID = 1;

export class ProjectHistory {
  readonly state: ProjectState;
  readonly events: NewEvent[] = [];
  private nextId: number;

  constructor(readonly projectId: number, request: Record<string, unknown>, at: number) {
    this.state = emptyState(streams.project(projectId));
    this.nextId = projectId * 10_000;
    this.decide((state, context) => decideCreateProject({ projectId, accountId: 1, request, owner: { personId: OWNER_ID }, takenNames: [] }, state, context), at);
  }

  get stream(): string {
    return this.state.stream;
  }

  decide(decide: (state: ProjectState, context: DecisionContext) => Decision, at: number): Decision {
    const decision = decide(this.state, { now: at, actorId: OWNER_ID, nextId: () => this.nextId++ });
    const version = this.state.version + 1;
    const meta = { schema: EVENT_SCHEMA, occurred_at: at, performed_by: OWNER_ID, command_id: `${this.stream}-${version}` };
    this.state.evolve({ ...decision, meta, id: `${this.stream}-${version}`, stream: this.stream, version, position: version });
    this.events.push({ type: decision.type, data: decision.data, meta });
    return decision;
  }

  /** Creates a story; returns its id. */
  story(input: Partial<CreateStoryInput>, at: number): number {
    return this.decide((state, context) => decideCreateStory({ name: 'A story', ...input }, state, context), at).subject.id;
  }

  update(storyId: number, input: Omit<UpdateStoryInput, 'story_id'>, at: number): void {
    this.decide((state, context) => decideUpdateStory({ story_id: storyId, ...input }, state, context), at);
  }

  override(number: number, request: Record<string, unknown>, at: number): void {
    this.decide((state, context) => decideSetIterationOverride({ number, request }, state, context), at);
  }
}
