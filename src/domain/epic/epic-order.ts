// The order of a project's epics (the Epics panel): a fractional key `rank` per epic (rank.ts), so that
// moving one epic rewrites only that epic. A new epic goes to the bottom unless before_id / after_id
// name an epic to sit directly above / below; `before_id` wins when both are given, as for stories.
import type { ProjectState } from '../project-state.js';
import { invalidField } from '../errors.js';
import { keyBetween } from '../rank.js';
import type { Neighbours, PositionRequest } from '../story/story-order.js';
import type { EpicDoc } from './epic-state.js';

/** A gap in the epic order (null = an end). */
export interface EpicSlot {
  above: EpicDoc | null;
  below: EpicDoc | null;
}

/** The project's epics from the top of the order to the bottom, read off the order the state keeps. */
export function orderedEpics(state: ProjectState): EpicDoc[] {
  return [...state.epicOrder()];
}

/** `after_id` is the epic directly above, `before_id` the one directly below. */
export function epicNeighbours(state: ProjectState, epicId: number): Neighbours {
  const epics = orderedEpics(state);
  const index = epics.findIndex((epic) => epic.id === epicId);
  if (index < 0) return { before_id: null, after_id: null };
  return { after_id: epics[index - 1]?.id ?? null, before_id: epics[index + 1]?.id ?? null };
}

/** The slot a request names, or the bottom of the order when it names none; `movingId` is ignored. */
export function epicSlot(state: ProjectState, movingId: number | null, request: PositionRequest): EpicSlot {
  const epics = orderedEpics(state).filter((epic) => epic.id !== movingId);
  const field = typeof request.before_id === 'number' ? 'before_id' : typeof request.after_id === 'number' ? 'after_id' : null;
  if (field === null) return { above: epics[epics.length - 1] ?? null, below: null };
  const targetId = request[field] as number;
  if (targetId === movingId) throw invalidField(field, 'An epic cannot be placed next to itself.');
  const index = epics.findIndex((epic) => epic.id === targetId);
  if (index < 0) throw invalidField(field, `Epic ${targetId} does not exist in this project.`);
  return field === 'before_id'
    ? { above: epics[index - 1] ?? null, below: epics[index]! }
    : { above: epics[index]!, below: epics[index + 1] ?? null };
}

export function rankInEpicSlot(slot: EpicSlot): string {
  return keyBetween(slot.above?.rank ?? null, slot.below?.rank ?? null);
}

export function epicSlotNeighbours(slot: EpicSlot): Neighbours {
  return { after_id: slot.above?.id ?? null, before_id: slot.below?.id ?? null };
}
