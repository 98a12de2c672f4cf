// Deciders for a project's epics. Each epic has exactly one label, and the stories carrying that label
// belong to the epic: a create names an existing label (by id or by name), or a new one by name, or
// none, and then takes the label named like the epic (created when missing). A label belongs to one
// epic at most. Deleting an epic keeps its label and its stories; its comments (and their files'
// metadata) go with it. Writes that only move an epic in the epic order are `epic_move` events.
// What its deciders (create-epic.ts, update-epic.ts, delete-epic.ts) share.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField } from '../errors.js';
import type { EventType, DecidedChange } from '../events.js';
import { labelNameProblem, newLabel } from '../label/label-references.js';
import type { LabelDoc } from '../project-documents.js';
import { epicOfLabel, epicRef } from './epic-state.js';
import type { EpicDoc } from './epic-state.js';

/** The longest epic name accepted, in characters. */
export const MAX_EPIC_NAME = 5000;

/** An epic's label as a request names it: an existing label's id (bare or as `{id}`), or `{name}` (created when missing). */
export type EpicLabelReference = number | { id?: number; name?: string };

/** The one way every epic decision is built. */
export function epicDecision(type: EventType, epic: EpicDoc, changes: DecidedChange[]): Decision {
  return { type, data: { changes, primary_resources: [epicRef(epic)] }, subject: { kind: 'epic', id: epic.id } };
}

export function epicName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw invalidField('name', "Name can't be blank");
  if (name.length > MAX_EPIC_NAME) throw invalidField('name', `'name' parameter must be ${MAX_EPIC_NAME} characters or less.`);
  return name;
}

/**
 * The label a create or update gives the epic: `label_id` or `label.id` (must exist), `label.name`
 * (matched, or created), else (create only) the epic's name. It must not be another epic's label.
 */
export function epicLabel(
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
