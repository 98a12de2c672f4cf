// Moving a story to another project: two events, one per project stream.
// - In the target: `story_move_into_project`, a create of the whole story (same id: ids are unique per
//   kind across projects) and of everything inside it (tasks, comments, blockers, reviews), its labels
//   and its reviews' types matched by name (created in the target when missing), placed by the
//   target's placement rules for its state (an unscheduled story at the top of the Icebox).
// - In the source: `story_move_from_project`, the delete of the story and its contents with the label
//   recounts, exactly as a delete.
// The story must satisfy the target's rules as it is (an estimate outside the target's point scale is
// rejected rather than silently dropped). The caller appends the target event first (see
// src/commands/story-move.ts for the window between the two appends). Each event names the other project,
// with its name, as secondary resource, so both feeds say where the story went or came from.
// Both deciders live here, one move's two halves: the snapshot the first takes travels to the second.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, invalidParameter } from '../errors.js';
import type { DecidedChange, ResourceKind } from '../events.js';
import { resolveLabels } from '../label/label-references.js';
import type { StoryDoc } from '../project-documents.js';
import type { ResourceDoc } from '../resource-state.js';
import { decideDeleteStory } from './delete-story.js';
import { storyRef, storyWriteChanges } from './story-changes.js';
import { matchReviewTypes, reviewTypeCreateChange, type ReviewDoc, type ReviewTypeDoc } from '../review/review-state.js';
import { bandOf, rankInSlot, ruledSlot, slotNeighbours } from './story-order.js';
import { storyRuleViolations } from './story-rules.js';

/** What the source project knows about the story being moved. */
export interface StoryMoveSnapshot {
  sourceProjectId: number;
  sourceProjectName: string;
  story: StoryDoc;
  /** Label names in the story's order (labels are per project: the target matches them by name). */
  labelNames: string[];
  contents: ReadonlyArray<{ kind: ResourceKind; doc: ResourceDoc }>;
  /** The types of the story's reviews (types are per project: the target matches them by name). */
  reviewTypes: ReviewTypeDoc[];
}

/** The story and its contents as the source project holds them; unfound when it holds no such story. */
export function storyMoveSnapshot(source: ProjectState, storyId: number): StoryMoveSnapshot {
  const story = source.stories.required(storyId);
  const contents = source.storyContents(story.id);
  const reviewTypeIds = new Set(contents.filter(({ kind }) => kind === 'review').map(({ doc }) => (doc as ReviewDoc).review_type_id));
  return {
    sourceProjectId: source.projectId,
    sourceProjectName: source.project().name,
    story,
    labelNames: story.label_ids.flatMap((id) => source.labels.get(id)?.name ?? []),
    contents,
    reviewTypes: [...reviewTypeIds].flatMap((id) => source.reviewTypes.get(id) ?? []),
  };
}

/** Whether the target already holds the story (a move interrupted after its first append). */
export function holdsStory(target: ProjectState, storyId: number): boolean {
  return target.stories.get(storyId) !== undefined;
}

export function decideMoveStoryIn(snapshot: StoryMoveSnapshot, target: ProjectState, context: DecisionContext): Decision {
  const project = target.project();
  const targetId = target.projectId;
  if (targetId === snapshot.sourceProjectId) throw invalidField('project_id', 'The story is already in this project.');
  if (holdsStory(target, snapshot.story.id)) throw invalidField('project_id', 'The story is already in the target project.');

  const labels = resolveLabels(target, [], snapshot.labelNames, context);
  const story: StoryDoc = { ...snapshot.story, project_id: targetId, label_ids: labels.labelIds, updated_at: context.now, rank: '' };
  const problems = storyRuleViolations(project, story, { estimateTouched: true });
  if (problems.length > 0) throw invalidParameter(problems);

  const slot = ruledSlot(target, null, story.current_state)!;
  story.rank = rankInSlot(bandOf(story.current_state), slot);
  const reviewTypes = matchReviewTypes(target, snapshot.reviewTypes, targetId, () => context.nextId('review_type'), context.now);
  const changes: DecidedChange[] = [
    ...storyWriteChanges(target, {
      before: null,
      after: story,
      createdLabels: labels.created,
      positionBefore: { before_id: null, after_id: null },
      positionAfter: slotNeighbours(slot),
    }),
    ...reviewTypes.created.map(reviewTypeCreateChange),
    ...snapshot.contents.map(({ kind, doc }): DecidedChange => {
      const { project_id: _p, ...values } = doc;
      if (kind === 'review') values['review_type_id'] = reviewTypes.idOf.get(Number(values['review_type_id'])) ?? values['review_type_id'];
      return { kind, change_type: 'create', id: doc.id, new_values: values };
    }),
  ];
  return {
    type: 'story_move_into_project',
    data: {
      changes,
      primary_resources: [storyRef(story)],
      secondary_resources: [{ kind: 'project', id: snapshot.sourceProjectId, name: snapshot.sourceProjectName }],
    },
    subject: { kind: 'story', id: story.id },
  };
}

export interface MoveStoryOutInput {
  story_id: number;
  target_project_id: number;
  /** The target's name, for the activity. */
  target_project_name: string;
}

export function decideMoveStoryOut(input: MoveStoryOutInput, source: ProjectState, context: DecisionContext): Decision {
  if (source.projectId === input.target_project_id) {
    throw invalidField('project_id', 'The story is already in this project.');
  }
  const deletion = decideDeleteStory({ story_id: input.story_id }, source, context);
  return {
    type: 'story_move_from_project',
    data: {
      ...deletion.data,
      secondary_resources: [{ kind: 'project', id: input.target_project_id, name: input.target_project_name }],
    },
    subject: deletion.subject,
  };
}
