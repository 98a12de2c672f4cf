// Renames a label: the new name, stored in lower case, must be free in the project regardless of case.
// A rename to the same name still records the update (its updated_at moves).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import { normalizedLabelName } from '../project-state.js';
import { assertLabelNameFree, labelRef } from './label-references.js';

export interface RenameLabelInput {
  label_id: number;
  name: string;
}

export function decideRenameLabel(input: RenameLabelInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const label = state.labels.required(input.label_id);
  assertLabelNameFree(state, input.name, label.id);
  const name = normalizedLabelName(input.name);
  const original: Record<string, unknown> = { updated_at: label.updated_at };
  const next: Record<string, unknown> = { updated_at: context.now };
  if (name !== label.name) {
    original.name = label.name;
    next.name = name;
  }
  const change: DecidedChange = {
    kind: 'label',
    change_type: 'update',
    id: label.id,
    name,
    original_values: original,
    new_values: next,
  };
  return {
    type: 'label_update',
    data: { changes: [change], primary_resources: [labelRef({ ...label, name })] },
    subject: { kind: 'label', id: label.id },
  };
}
