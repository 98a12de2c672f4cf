// Creating an epic: its name, its one label (found or created) and its place in the epic order.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import { emptyStoryCounts } from '../label/label-counts.js';
import { labelCreateChange } from '../label/label-references.js';
import type { PositionRequest } from '../story/story-order.js';
import { writeComments } from '../comment/comment-writes.js';
import type { NewComment } from '../comment/comment-writes.js';
import { epicSlot, epicSlotNeighbours, rankInEpicSlot } from './epic-order.js';
import { epicChangeHead } from './epic-state.js';
import type { EpicDoc } from './epic-state.js';
import { type EpicLabelReference, epicDecision, epicName, epicLabel } from './epic-rules.js';

export interface CreateEpicCommand extends PositionRequest {
  name: string;
  description?: string | null;
  label?: EpicLabelReference;
  label_id?: number;
  /** Created with the epic, in the same event. */
  comments?: NewComment[];
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
