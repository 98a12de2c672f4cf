// The story order index (story-order.ts) kept by evolve() must agree, after any history, with the order
// rebuilt from scratch: the stories sorted by rank, and the placements a freshly folded state (whose
// index is built on first use) decides.
import { expect } from 'chai';
import type { Decision, DecisionContext } from '../../../src/domain/decision.js';
import { DomainError } from '../../../src/domain/errors.js';
import { EVENT_SCHEMA, type RecordedEvent } from '../../../src/domain/events.js';
import type { StoryState } from '../../../src/domain/project-documents.js';
import type { ProjectState } from '../../../src/domain/project-state.js';
import { decideCreateStory, type CreateStoryInput } from '../../../src/domain/story/create-story.js';
import { decideDeleteStory } from '../../../src/domain/story/delete-story.js';
import { decideUpdateStory, type UpdateStoryInput } from '../../../src/domain/story/update-story.js';
import { neighbours, orderedStories } from '../../../src/domain/story/story-order.js';
import { seededRandom } from '../../support/seeded-random.js';
import { OWNER, givenProject } from './decider-scenario.js';

const STATES: StoryState[] = ['unscheduled', 'unstarted', 'planned', 'started', 'finished', 'delivered', 'accepted', 'rejected'];

type Command = { kind: 'create'; input: CreateStoryInput } | { kind: 'update'; input: UpdateStoryInput } | { kind: 'delete'; storyId: number };

/** The order as a full sort of the stories gives it (rank, then id), independent of the index. */
function sortedIds(state: ProjectState): number[] {
  return [...state.stories]
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.id - b.id))
    .map((story) => story.id);
}

/** A seeded random story write among the stories `ids` (in order). */
function randomCommand(random: () => number, ids: readonly number[]): Command {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const position = () => (random() < 0.5 ? { before_id: pick(ids) } : { after_id: pick(ids) });
  const roll = random();
  if (ids.length === 0 || roll < 0.5) {
    return { kind: 'create', input: { name: 's', estimate: 1, current_state: pick(STATES), ...(ids.length > 0 && random() < 0.3 ? position() : {}) } };
  }
  if (roll < 0.75) return { kind: 'update', input: { story_id: pick(ids), current_state: pick(STATES) } };
  if (roll < 0.95) return { kind: 'update', input: { story_id: pick(ids), ...position() } };
  return { kind: 'delete', storyId: pick(ids) };
}

function decide(command: Command, state: ProjectState, context: DecisionContext): Decision {
  if (command.kind === 'create') return decideCreateStory(command.input, state, context);
  if (command.kind === 'update') return decideUpdateStory(command.input, state, context);
  return decideDeleteStory({ story_id: command.storyId }, state, context);
}

describe('story order index', () => {
  it('agrees with the sorted stories and with a state folded afresh, over 1,500 seeded writes', () => {
    const { state } = givenProject({ automatic_planning: false });
    const events: RecordedEvent[] = [];
    /** The project as givenProject makes it, with every recorded event folded afresh. */
    const refolded = () => {
      const fresh = givenProject({ automatic_planning: false }).state;
      for (const event of events) fresh.evolve(event);
      return fresh;
    };
    const random = seededRandom(20261123);
    let nextId = 1000;
    let now = Date.UTC(2026, 0, 1);
    for (let step = 0; step < 1500; step++) {
      now += 1000;
      const command = randomCommand(random, sortedIds(state));
      const context = (): DecisionContext => {
        let id = nextId;
        return { now, actorId: OWNER, nextId: () => id++ };
      };
      let decision: Decision;
      try {
        decision = decide(command, state, context());
      } catch (error) {
        // Positions across the Icebox boundary and next to the story itself are refused.
        if (!(error instanceof DomainError) || error.code !== 'invalid_parameter') throw error;
        continue;
      }
      if (step % 100 === 0) expect(decide(command, refolded(), context()).data, `step ${step}`).to.deep.equal(decision.data);
      nextId += 10;
      const version = state.version + 1;
      const event: RecordedEvent = {
        id: `e-${version}`, stream: state.stream, version, position: version, type: decision.type, data: decision.data,
        meta: { schema: EVENT_SCHEMA, occurred_at: now, performed_by: OWNER, command_id: `c-${version}` },
      };
      events.push(event);
      state.evolve(event);
      expect(orderedStories(state).map((story) => story.id), `step ${step}`).to.deep.equal(sortedIds(state));
    }
    const order = orderedStories(state).map((story) => story.id);
    expect(order.length).to.be.greaterThan(600);
    order.forEach((id, i) => {
      expect(neighbours(state, id)).to.deep.equal({ after_id: order[i - 1] ?? null, before_id: order[i + 1] ?? null });
    });
  });
});
