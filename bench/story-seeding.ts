// Seeding many stories the way the API would write them, fast: the creates are decided by the API's own
// decider over the project's state folded locally, and appended to the project stream in one batch (one
// append instead of one request per story).
import { emptyState } from '../src/domain/decision-states.js';
import { EVENT_SCHEMA, streams, type NewEvent } from '../src/domain/events.js';
import type { ProjectState } from '../src/domain/project-state.js';
import { decideCreateStory, type CreateStoryInput } from '../src/domain/story/create-story.js';
import type { Storyline } from '../src/infra/composition.js';

/**
 * `count` story creates by `actorId` in project `projectId`, the i-th made of `inputOf(i)` at `start`
 * plus i seconds, appended as one batch; returns the project's state after them.
 */
export async function appendStoryCreates(
  storyline: Storyline,
  projectId: number,
  actorId: number,
  count: number,
  inputOf: (i: number) => CreateStoryInput,
  start = Date.UTC(2026, 0, 1),
): Promise<ProjectState> {
  const stream = streams.project(projectId);
  const state = emptyState(stream);
  for (const event of await storyline.eventStore.readStream(stream)) state.evolve(event);
  const baseVersion = state.version;
  const storyIds: number[] = [];
  for (let i = 0; i < count; i++) storyIds.push(await storyline.ids.next('story'));
  const commandId = crypto.randomUUID();
  const events: NewEvent[] = [];
  for (let i = 0; i < count; i++) {
    const now = start + i * 1000;
    const decision = decideCreateStory(inputOf(i), state, { now, actorId, nextId: () => storyIds[i]! });
    const event: NewEvent = { type: decision.type, data: decision.data, meta: { schema: EVENT_SCHEMA, occurred_at: now, performed_by: actorId, command_id: commandId } };
    events.push(event);
    state.evolve({ ...event, id: `seed-${i}`, stream, version: state.version + 1, position: 0 });
  }
  await storyline.eventStore.append(stream, baseVersion, events);
  return state;
}
