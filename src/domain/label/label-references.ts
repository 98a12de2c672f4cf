// How requests name labels: by id (the label must exist) or by name (matched regardless of case; a
// name that matches no label creates one). Label names are stored in lower case.
import type { ProjectState } from '../project-state.js';
import type { DecisionContext } from '../decision.js';
import { invalidField } from '../errors.js';
import type { ResourceRef, ResourceChange } from '../events.js';
import { normalizedLabelName } from '../project-state.js';
import type { LabelDoc, StoryCounts } from '../project-documents.js';

/** A label as a request names it: a bare name, or an object with `id` and/or `name`. */
export type LabelReference = string | { id?: number; name?: string };

export interface ResolvedLabels {
  /** The labels named, without repeats, in name order (as the service lists a story's labels). */
  labelIds: number[];
  /** Labels created because a name matched none (not yet in the state). */
  created: LabelDoc[];
}

/** Why a label name cannot be used, or null. */
export function labelNameProblem(name: unknown): string | null {
  if (typeof name !== 'string' || name.trim() === '') return "Name can't be blank";
  return null;
}

/** A new label document named `name` (already checked), with a fresh id. */
export function newLabel(state: ProjectState, name: string, context: DecisionContext): LabelDoc {
  return {
    id: context.nextId('label'),
    project_id: state.projectId,
    name: normalizedLabelName(name),
    created_at: context.now,
    updated_at: context.now,
  };
}

/** Resolves label ids and references to label ids, creating labels for unknown names. */
export function resolveLabels(
  state: ProjectState,
  labelIds: readonly number[],
  references: readonly LabelReference[],
  context: DecisionContext,
): ResolvedLabels {
  const resolved: ResolvedLabels = { labelIds: [], created: [] };
  const add = (id: number) => {
    if (!resolved.labelIds.includes(id)) resolved.labelIds.push(id);
  };
  for (const id of labelIds) {
    if (!state.labels.get(id)) throw invalidField('label_ids', `Label ${id} does not exist in this project.`);
    add(id);
  }
  for (const reference of references) {
    const { id, name } = typeof reference === 'string' ? { id: undefined, name: reference } : reference;
    if (typeof id === 'number') {
      if (!state.labels.get(id)) throw invalidField('labels', `Label ${id} does not exist in this project.`);
      add(id);
      continue;
    }
    const problem = labelNameProblem(name);
    if (problem) throw invalidField('labels', problem);
    const existing =
      state.labelNamed(name!) ?? resolved.created.find((label) => label.name === normalizedLabelName(name!));
    if (existing) {
      add(existing.id);
      continue;
    }
    const created = newLabel(state, name!, context);
    resolved.created.push(created);
    add(created.id);
  }
  const nameOf = (id: number) => (state.labels.get(id) ?? resolved.created.find((label) => label.id === id))!.name;
  resolved.labelIds.sort((a, b) => compareLabelNames(nameOf(a), nameOf(b)));
  return resolved;
}

/** Label name order: by code point of the stored (lower-case) names, so it never depends on the locale. */
function compareLabelNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The create change of a new label, carrying its counts. */
export function labelCreateChange(label: LabelDoc, counts: StoryCounts): ResourceChange<'label'> {
  return {
    kind: 'label',
    change_type: 'create',
    id: label.id,
    name: label.name,
    new_values: { ...label, counts },
  };
}

/** How an event names a label among its primary resources. */
export function labelRef(label: LabelDoc): ResourceRef {
  return { kind: 'label', id: label.id, name: label.name };
}

/** A label may take `name`: a valid name no other label of the project holds (`ownId`: the label renamed). */
export function assertLabelNameFree(state: ProjectState, name: string, ownId: number | null): void {
  const problem = labelNameProblem(name);
  if (problem) throw invalidField('name', problem);
  const holder = state.labelNamed(name);
  if (holder && holder.id !== ownId) throw invalidField('name', 'Name has already been taken');
}
