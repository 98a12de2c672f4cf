// Deciders for a project's epics. Each epic has exactly one label, and the stories carrying that label
// belong to the epic: a create names an existing label (by id or by name), or a new one by name, or
// none, and then takes the label named like the epic (created when missing). A label belongs to one
// epic at most. Deleting an epic keeps its label and its stories; its comments (and their files'
// metadata) go with it. Writes that only move an epic in the epic order are `epic_move` events.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField } from '../errors.js';
import { changedValues } from '../changed-values.js';
import type { EventType, DecidedChange } from '../events.js';
import { emptyStoryCounts } from '../label/label-counts.js';
import { labelCreateChange, labelNameProblem, newLabel } from '../label/label-references.js';
import type { LabelDoc } from '../project-documents.js';
import type { Neighbours, PositionRequest } from '../story/story-order.js';
import { commentDeleteChanges, commentsOfEpic } from '../comment/comment-edit.js';
import { writeComments } from '../comment/comment-create.js';
import type { NewComment } from '../comment/comment-create.js';
import { epicNeighbours, epicSlot, epicSlotNeighbours, rankInEpicSlot } from './epic-order.js';
import { epicChangeHead, epicOf, epicOfLabel, epicRef } from './epic-state.js';
import type { EpicDoc } from './epic-state.js';

/** The longest epic name accepted, in characters. */
export const MAX_EPIC_NAME = 5000;

/** An epic's label as a request names it: an existing label's id (bare or as `{id}`), or `{name}` (created when missing). */
export type EpicLabelReference = number | { id?: number; name?: string };

export interface CreateEpicCommand extends PositionRequest {
  name: string;
  description?: string | null;
  label?: EpicLabelReference;
  label_id?: number;
  /** Created with the epic, in the same event. */
  comments?: NewComment[];
}

export interface UpdateEpicCommand extends PositionRequest {
  epic_id: number;
  name?: string;
  description?: string | null;
  label?: EpicLabelReference;
  label_id?: number;
}

export interface DeleteEpicCommand {
  epic_id: number;
}

export function decideCreateEpic(command: CreateEpicCommand, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const name = epicName(command.name);
  const label = epicLabel(state, command, name, null, context);
  const slot = epicSlot(state, null, command);
  const epic: EpicDoc = {
    id: context.nextId('epic'),
    project_id: state.projectId,
    name,
    ...(command.description ? { description: command.description } : {}),
    label_id: label.doc.id,
    follower_ids: [],
    created_at: context.now,
    updated_at: context.now,
    rank: rankInEpicSlot(slot),
  };
  const comments = writeComments(state, { kind: 'epic', id: epic.id }, command.comments ?? [], 'comments', context);
  epic.follower_ids = comments.followerIds;
  const { rank, ...values } = epic;
  const changes: DecidedChange[] = [
    { ...epicChangeHead(epic), change_type: 'create', new_values: { ...values, ...epicSlotNeighbours(slot) }, rank },
    ...(label.created ? [labelCreateChange(label.doc, emptyStoryCounts())] : []),
    ...comments.changes,
  ];
  return epicDecision('epic_create', epic, changes);
}

export function decideUpdateEpic(command: UpdateEpicCommand, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const before = epicOf(state, command.epic_id);
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

export function decideDeleteEpic(command: DeleteEpicCommand, state: ProjectState, _context: DecisionContext): Decision {
  state.project();
  const epic = epicOf(state, command.epic_id);
  const { rank: _rank, ...values } = epic;
  const changes: DecidedChange[] = [
    { ...epicChangeHead(epic), change_type: 'delete', original_values: values },
    ...commentsOfEpic(state, epic.id).flatMap((comment) => commentDeleteChanges(state, comment)),
  ];
  return epicDecision('epic_delete', epic, changes);
}

/** The one way every epic decision is built. */
function epicDecision(type: EventType, epic: EpicDoc, changes: DecidedChange[]): Decision {
  return { type, data: { changes, primary_resources: [epicRef(epic)] }, subject: { kind: 'epic', id: epic.id } };
}

function epicName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw invalidField('name', "Name can't be blank");
  if (name.length > MAX_EPIC_NAME) throw invalidField('name', `'name' parameter must be ${MAX_EPIC_NAME} characters or less.`);
  return name;
}

/**
 * The label a create or update gives the epic: `label_id` or `label.id` (must exist), `label.name`
 * (matched, or created), else (create only) the epic's name. It must not be another epic's label.
 */
function epicLabel(
  state: ProjectState,
  command: { label?: EpicLabelReference; label_id?: number },
  epicName: string,
  epicId: number | null,
  context: DecisionContext,
): { doc: LabelDoc; created: boolean } {
  const field = command.label_id !== undefined ? 'label_id' : 'label';
  const reference = typeof command.label === 'number' ? { id: command.label } : command.label;
  const id = command.label_id ?? reference?.id;
  const resolved = (() => {
    if (id !== undefined) {
      const label = state.labels.get(id);
      if (!label) throw invalidField(field, `Label ${id} does not exist in this project.`);
      return { doc: label, created: false };
    }
    const name = reference?.name ?? epicName;
    const problem = labelNameProblem(name);
    if (problem) throw invalidField(field, problem);
    const existing = state.labelNamed(name);
    return existing ? { doc: existing, created: false } : { doc: newLabel(state, name, context), created: true };
  })();
  const holder = resolved.created ? undefined : epicOfLabel(state, resolved.doc.id);
  if (holder && holder.id !== epicId) {
    throw invalidField(field, `Label "${resolved.doc.name}" already belongs to epic ${holder.id}.`);
  }
  return resolved;
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
