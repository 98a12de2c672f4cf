// Deleting an epic, and its comments with it; its label and the stories carrying it stay.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import { commentDeleteChanges, commentsOfEpic } from '../comment/comment-edits.js';
import { epicChangeHead } from './epic-state.js';
import { epicDecision } from './epic-rules.js';

export interface DeleteEpicCommand {
  epic_id: number;
}

export function decideDeleteEpic(command: DeleteEpicCommand, state: ProjectState, _context: DecisionContext): Decision {
  state.project();
  const epic = state.epics.required(command.epic_id);
  const { rank: _rank, ...values } = epic;
  const changes: DecidedChange[] = [
    { ...epicChangeHead(epic), change_type: 'delete', original_values: values },
    ...commentsOfEpic(state, epic.id).flatMap((comment) => commentDeleteChanges(state, comment)),
  ];
  return epicDecision('epic_delete', epic, changes);
}
