// Deciders for a project's labels: create, rename and delete. A label name identifies the label within
// its project regardless of case; names are stored in lower case.
import type { Decision, DecisionContext } from '../decision.js';
import { epicOfLabel } from '../epic/epic-state.js';
import { invalidField } from '../errors.js';
import type { ResourceChange, ResourceRef } from '../events.js';
import { docsOfKind, findLabelByName, labelOf, normalizedLabelName, projectOf } from '../project-state.js';
import type { LabelDoc, StoryDoc } from '../project-documents.js';
import type { StreamState } from '../resource-state.js';
import { labelNames, storyUpdateChange } from '../story/story-changes.js';
import { emptyStoryCounts } from './label-counts.js';
import { labelCreateChange, labelNameProblem, newLabel } from './label-references.js';

export interface CreateLabelInput {
  name: string;
}

export interface RenameLabelInput {
  label_id: number;
  name: string;
}

export interface DeleteLabelInput {
  label_id: number;
}

export function decideCreateLabel(input: CreateLabelInput, state: StreamState, context: DecisionContext): Decision {
  projectOf(state);
  assertNameFree(state, input.name, null);
  const label = newLabel(state, input.name, context);
  return {
    type: 'label_create',
    data: { changes: [labelCreateChange(label, emptyStoryCounts())], primary_resources: [labelRef(label)] },
    subject: { kind: 'label', id: label.id },
  };
}

export function decideRenameLabel(input: RenameLabelInput, state: StreamState, context: DecisionContext): Decision {
  projectOf(state);
  const label = labelOf(state, input.label_id);
  assertNameFree(state, input.name, label.id);
  const name = normalizedLabelName(input.name);
  const original: Record<string, unknown> = { updated_at: label.updated_at };
  const next: Record<string, unknown> = { updated_at: context.now };
  if (name !== label.name) {
    original.name = label.name;
    next.name = name;
  }
  const change: ResourceChange = {
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

/**
 * Deletes a label and takes it off every story that carries it (one story update each). The label of
 * an epic goes only with its epic.
 */
export function decideDeleteLabel(input: DeleteLabelInput, state: StreamState, context: DecisionContext): Decision {
  projectOf(state);
  const label = labelOf(state, input.label_id);
  if (epicOfLabel(state, label.id)) {
    throw invalidField('label_id', 'This label belongs to an epic; delete the epic to delete its label.');
  }
  const changes: ResourceChange[] = [
    { kind: 'label', change_type: 'delete', id: label.id, name: label.name, original_values: { ...label } },
  ];
  for (const story of docsOfKind<StoryDoc>(state, 'story')) {
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

export function labelRef(label: LabelDoc): ResourceRef {
  return { kind: 'label', id: label.id, name: label.name };
}

function assertNameFree(state: StreamState, name: string, ownId: number | null): void {
  const problem = labelNameProblem(name);
  if (problem) throw invalidField('name', problem);
  const holder = findLabelByName(state, name);
  if (holder && holder.id !== ownId) throw invalidField('name', 'Name has already been taken');
}
