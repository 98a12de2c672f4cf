// Deletes a label and takes it off every story that carries it (one story update each). The label of
// an epic goes only with its epic.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { epicOfLabel } from '../epic/epic-state.js';
import { invalidField } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { labelNames, storyUpdateChange } from '../story/story-changes.js';
import { labelRef } from './label-references.js';

export interface DeleteLabelInput {
  label_id: number;
}

export function decideDeleteLabel(input: DeleteLabelInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const label = state.labels.required(input.label_id);
  if (epicOfLabel(state, label.id)) {
    throw invalidField('label_id', 'This label belongs to an epic; delete the epic to delete its label.');
  }
  const changes: DecidedChange[] = [
    { kind: 'label', change_type: 'delete', id: label.id, name: label.name, original_values: { ...label } },
  ];
  for (const story of state.stories) {
    if (!story.label_ids.includes(label.id)) continue;
    const remaining = story.label_ids.filter((id) => id !== label.id);
    changes.push(
      storyUpdateChange(
        story,
        { label_ids: story.label_ids, labels: labelNames(state, story.label_ids), updated_at: story.updated_at },
        { label_ids: remaining, labels: labelNames(state, remaining), updated_at: context.now },
      ),
    );
  }
  return { type: 'label_delete', data: { changes, primary_resources: [labelRef(label)] }, subject: { kind: 'label', id: label.id } };
}
