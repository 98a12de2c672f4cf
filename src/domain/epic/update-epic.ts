// Changing an epic's name, description, label or place in the order; the change records only what differs.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { changedValues } from '../changed-values.js';
import type { DecidedChange } from '../events.js';
import { emptyStoryCounts } from '../label/label-counts.js';
import { labelCreateChange } from '../label/label-references.js';
import type { Neighbours, PositionRequest } from '../story/story-order.js';
import { epicNeighbours, epicSlot, epicSlotNeighbours, rankInEpicSlot } from './epic-order.js';
import { epicChangeHead } from './epic-state.js';
import type { EpicDoc } from './epic-state.js';
import { type EpicLabelReference, epicDecision, epicName, epicLabel } from './epic-rules.js';

export interface UpdateEpicCommand extends PositionRequest {
  epic_id: number;
  name?: string;
  description?: string | null;
  label?: EpicLabelReference;
  label_id?: number;
}

export function decideUpdateEpic(command: UpdateEpicCommand, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const before = state.epics.required(command.epic_id);
  const name = command.name !== undefined ? epicName(command.name) : before.name;
  const relabelled = command.label !== undefined || command.label_id !== undefined;
  const label = relabelled ? epicLabel(state, command, name, before.id, context) : null;
  const moved = typeof command.before_id === 'number' || typeof command.after_id === 'number';
  const slot = moved ? epicSlot(state, before.id, command) : null;

  const { description: _description, ...kept } = before;
  const description = 'description' in command ? command.description : before.description;
  const after: EpicDoc = {
    ...kept,
    name,
    ...(description ? { description } : {}),
    label_id: label?.doc.id ?? before.label_id,
    updated_at: context.now,
    rank: slot ? rankInEpicSlot(slot) : before.rank,
  };
  const positionBefore = slot ? epicNeighbours(state, before.id) : null;
  const positionAfter = slot ? epicSlotNeighbours(slot) : null;
  const change = epicUpdateValues(before, after, positionBefore, positionAfter);
  const changes: DecidedChange[] = [change, ...(label?.created ? [labelCreateChange(label.doc, emptyStoryCounts())] : [])];
  const onlyMoved = Object.keys(change.new_values ?? {}).every((key) => ['before_id', 'after_id', 'updated_at'].includes(key));
  return epicDecision(slot && onlyMoved ? 'epic_move' : 'epic_update', after, changes);
}

/** The epic's update change: changed keys (nulls explicit), neighbours when it moved, updated_at. */
function epicUpdateValues(
  before: EpicDoc,
  after: EpicDoc,
  positionBefore: Neighbours | null,
  positionAfter: Neighbours | null,
): DecidedChange {
  const { original_values, new_values } = changedValues(
    { ...before, ...positionBefore },
    { ...after, ...positionAfter },
    ['name', 'description', 'label_id', ...(positionBefore && positionAfter ? ['before_id', 'after_id'] : [])],
  );
  return {
    ...epicChangeHead(after),
    change_type: 'update',
    original_values,
    new_values,
    ...(after.rank !== before.rank ? { rank: after.rank } : {}),
  };
}
