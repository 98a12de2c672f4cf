// Creates a label in a project. A label name identifies the label within its project regardless of
// case; names are stored in lower case, and a new label's story counts start at zero.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { emptyStoryCounts } from './label-counts.js';
import { assertLabelNameFree, labelCreateChange, labelRef, newLabel } from './label-references.js';

export interface CreateLabelInput {
  name: string;
}

export function decideCreateLabel(input: CreateLabelInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  assertLabelNameFree(state, input.name, null);
  const label = newLabel(state, input.name, context);
  return {
    type: 'label_create',
    data: { changes: [labelCreateChange(label, emptyStoryCounts())], primary_resources: [labelRef(label)] },
    subject: { kind: 'label', id: label.id },
  };
}
