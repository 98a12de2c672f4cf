// Deleting a story: the story goes, and with it what lives inside it (its tasks, comments, blockers,
// reviews and its comments' files), so the project's state keeps no orphans; each of their changes is
// named as when it goes alone (a task or blocker by its description, a review by its type, a file by
// its name).
// Its labels are recounted, and the stories its blockers named no longer list it as blocked.
import type { ProjectState } from '../project-state.js';
import { blockedStoryChangesForDeletedStory, blockerDeleteChange } from '../blocker/blocker-changes.js';
import type { BlockerDoc } from '../blocker/blocker-changes.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange, ResourceKind } from '../events.js';
import { fileDeleteChange } from '../file-attachment/upload-file.js';
import type { FileAttachmentDoc } from '../file-attachment/upload-file.js';
import type { TaskDoc } from '../project-documents.js';
import type { ResourceDoc } from '../resource-state.js';
import { taskDeleteChange } from '../task/task-changes.js';
import { reviewDeleteChange, reviewTypeName, type ReviewDoc } from '../review/review-state.js';
import { storyRef, storyWriteChanges } from './story-changes.js';
import { UNMOVED } from './story-order.js';

export interface DeleteStoryInput {
  story_id: number;
}

export function decideDeleteStory(input: DeleteStoryInput, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(input.story_id);
  const changes: DecidedChange[] = storyWriteChanges(state, {
    before: story,
    after: null,
    createdLabels: [],
    positionBefore: UNMOVED,
    positionAfter: UNMOVED,
  });
  for (const { kind, doc } of state.storyContents(story.id)) changes.push(contentDeleteChange(state, kind, doc));
  changes.push(...blockedStoryChangesForDeletedStory(state, story.id, context.now));
  return { type: 'story_delete', data: { changes, primary_resources: [storyRef(story)] }, subject: { kind: 'story', id: story.id } };
}

/** The delete change of something inside the story, as when it goes alone. */
function contentDeleteChange(state: ProjectState, kind: ResourceKind, doc: ResourceDoc): DecidedChange {
  if (kind === 'task') return taskDeleteChange(doc as TaskDoc);
  if (kind === 'review') return reviewDeleteChange(doc as ReviewDoc, reviewTypeName(state, doc as ReviewDoc));
  if (kind === 'blocker') return blockerDeleteChange(doc as BlockerDoc);
  if (kind === 'file_attachment') return fileDeleteChange(doc as FileAttachmentDoc);
  return { kind, change_type: 'delete', id: doc.id, original_values: { ...doc } };
}
