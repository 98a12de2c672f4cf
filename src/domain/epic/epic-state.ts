// An epic as the project's state holds it, and how writes find one.
import type { ProjectState } from '../project-state.js';
import type { ResourceRef, ResourceChange, ChangeValues } from '../events.js';
import type { ResourceDoc } from '../resource-state.js';

export interface EpicDoc extends ResourceDoc {
  project_id: number;
  name: string;
  description?: string;
  /** The epic's one label: the stories carrying it belong to the epic. */
  label_id: number;
  /** Commenters and people mentioned in its comments. */
  follower_ids: number[];
  created_at: number;
  updated_at: number;
  rank: string;
}

/** The epic whose label this is, if any (a label belongs to at most one epic). */
export function epicOfLabel(state: ProjectState, labelId: number): EpicDoc | undefined {
  for (const epic of state.epics) if (epic.label_id === labelId) return epic;
  return undefined;
}

export function epicRef(epic: EpicDoc): ResourceRef {
  return { kind: 'epic', id: epic.id, name: epic.name };
}

/** The fields every change of an epic starts with: its kind, id and name. */
export function epicChangeHead(epic: EpicDoc): { kind: 'epic'; id: number; name: string } {
  return { kind: 'epic', id: epic.id, name: epic.name };
}

/** An update of some of an epic's values, as another resource's write records it (a comment's touch). */
export function epicUpdateChange(epic: EpicDoc, originalValues: ChangeValues<'epic'>, newValues: ChangeValues<'epic'>): ResourceChange<'epic'> {
  return { ...epicChangeHead(epic), change_type: 'update', original_values: originalValues, new_values: newValues };
}
