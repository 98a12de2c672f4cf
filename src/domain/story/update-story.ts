// Updating a story (partial): attributes, state moves with their side effects (accepted_at, position),
// people, labels and an explicit position. Sub-resource writes (a story's labels and owners:
// add-story-label.ts, remove-story-label.ts, add-story-owner.ts, remove-story-owner.ts) are updates of the
// same story and go through this decider.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { writeComments } from '../comment/comment-writes.js';
import type { NewComment } from '../comment/comment-writes.js';
import { invalidField, invalidParameter } from '../errors.js';
import type { ValidationError } from '../errors.js';
import { resolveLabels } from '../label/label-references.js';
import type { ProjectDoc, StoryDoc, StoryState } from '../project-documents.js';
import { optional, type StoryAttributes } from './create-story.js';
import { isMoveOnly, storyRef, storyWriteChanges } from './story-changes.js';
import { bandOf, hasPositionRequest, neighbours, rankInSlot, requestedSlot, ruledSlot, slotNeighbours, UNMOVED } from './story-order.js';
import type { Neighbours, Slot } from './story-order.js';
import { followersAfter, nonMemberProblems, requestedOwners, unique } from './story-people.js';
import { isEstimable, storyRuleViolations, storyTimeProblem } from './story-rules.js';

/** Where `before_id` / `after_id` point: which part of the order the story is dropped into. */
export type StoryGroup = 'scheduled' | 'unscheduled' | 'current';

/**
 * The comment a reviewer may send with a rejection (spec: PUT story `comment`). Text that is not blank,
 * or uploaded files (the objects the upload returned), become a comment on the story, created in the
 * same event as the rejection, and its writer starts following the story (facts §6.2).
 */
export interface RejectionComment {
  text?: string;
  file_attachments?: Array<{ id: number }>;
}

/** A story update request. Only present keys change; null clears. */
export interface UpdateStoryInput extends StoryAttributes {
  story_id: number;
  name?: string;
  /** Only together with before_id or after_id. */
  group?: StoryGroup;
  /** Only together with current_state rejected. */
  comment?: RejectionComment;
  /**
   * A comment the acting person writes with the update, whatever it changes (not a request key: a
   * source commit's comment, source-commit/record-commit.ts). Its writer starts following the story.
   */
  note?: NewComment;
}

export function decideUpdateStory(input: UpdateStoryInput, state: ProjectState, context: DecisionContext): Decision {
  const project = state.project();
  const before = state.stories.required(input.story_id);
  const now = context.now;
  const problems: ValidationError[] = [];

  const currentState = nextState(project, before, input);
  const commentProblems = rejectionCommentProblems(input.comment, currentState, context.actorId);
  problems.push(...commentProblems);
  const rejection = commentProblems.length === 0 ? rejectionComment(input.comment) : null;
  const written = [rejection, input.note ?? null].filter((one): one is NewComment => one !== null);
  const comment = written.length > 0 ? writeComments(state, { kind: 'story', id: before.id }, written, 'comment', context) : null;
  const storyType = input.story_type ?? before.story_type;
  const estimateTouched = 'estimate' in input || 'story_type' in input;
  const estimate =
    'estimate' in input ? input.estimate : isEstimable(project, storyType) ? before.estimate : undefined;
  const deadline = 'deadline' in input ? input.deadline : storyType === 'release' ? before.deadline : undefined;
  const acceptedAt = acceptedAtAfter(before, currentState, input.accepted_at, now);
  if (typeof input.accepted_at === 'number') {
    const problem = storyTimeProblem('accepted_at', input.accepted_at, now);
    if (problem) problems.push(problem);
  }

  const requesterId = input.requested_by_id ?? before.requested_by_id;
  const owners = requestedOwners(before.owner_ids, input.owner_ids, input.owned_by_id);
  // Only commenting makes a follower; becoming requester or owner does not (issue 11 item 5).
  const followers = followersAfter(unique(input.follower_ids ?? before.follower_ids), comment?.followerIds ?? []);
  const relabelled = input.label_ids !== undefined || input.labels !== undefined;
  const labels = relabelled
    ? resolveLabels(state, input.label_ids ?? [], input.labels ?? [], context)
    : { labelIds: before.label_ids, created: [] };

  const { description: _d, estimate: _e, accepted_at: _a, deadline: _dl, external_id: _x, integration_id: _i, ...kept } =
    before;
  const after: StoryDoc = {
    ...kept,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...optional('description', 'description' in input ? input.description || null : before.description),
    story_type: storyType,
    current_state: currentState,
    ...optional('estimate', estimate),
    story_priority: input.story_priority ?? before.story_priority,
    requested_by_id: requesterId,
    owner_ids: owners,
    follower_ids: followers,
    label_ids: labels.labelIds,
    ...optional('accepted_at', acceptedAt),
    ...optional('deadline', deadline),
    ...optional('external_id', 'external_id' in input ? input.external_id : before.external_id),
    ...optional('integration_id', 'integration_id' in input ? input.integration_id : before.integration_id),
    updated_at: now,
  };
  problems.push(
    ...storyRuleViolations(project, after, { estimateTouched }),
    ...nonMemberProblems(state, 'requested_by_id', [requesterId], [before.requested_by_id]),
    ...nonMemberProblems(state, 'owner_ids', owners, before.owner_ids),
    ...nonMemberProblems(state, 'follower_ids', input.follower_ids ?? [], before.follower_ids),
  );
  if (problems.length > 0) throw invalidParameter(problems);

  const slot = hasPositionRequest(input) ? requestedSlot(state, before.id, input) : ruledSlot(state, before, currentState);
  const positionField = input.group ? 'group' : typeof input.before_id === 'number' ? 'before_id' : 'after_id';
  const positionBefore = slot ? neighbours(state, before.id) : UNMOVED;
  const positionAfter = slot ? placeStory(before, after, slot, positionBefore, positionField) : UNMOVED;

  const changes = storyWriteChanges(state, {
    before,
    after,
    createdLabels: labels.created,
    positionBefore,
    positionAfter,
  });
  if (comment) changes.push(...comment.changes);
  return {
    type: isMoveOnly(changes[0]!) ? 'story_move' : 'story_update',
    data: { changes, primary_resources: [storyRef(after)] },
    subject: { kind: 'story', id: after.id },
  };
}

/**
 * The state after the update. `group` says which part of the order before_id / after_id point into,
 * and moves the story's state along when the story comes from (or goes to) the Icebox:
 * `unscheduled` sends it to the Icebox; `scheduled` takes an unscheduled story to unstarted;
 * `current` does the same, or makes it planned when the project plans the Current iteration by hand.
 */
function nextState(project: ProjectDoc, before: StoryDoc, input: UpdateStoryInput): StoryState {
  if (input.group === undefined) return input.current_state ?? before.current_state;
  if (!hasPositionRequest(input)) throw invalidField('group', 'group must be sent with before_id or after_id.');
  const mismatch = () => invalidField('group', `group ${input.group} does not match current_state ${input.current_state}.`);
  if (input.group === 'unscheduled') {
    if (input.current_state !== undefined && input.current_state !== 'unscheduled') throw mismatch();
    return 'unscheduled';
  }
  if (input.current_state === 'unscheduled') throw mismatch();
  if (input.current_state !== undefined) return input.current_state;
  const current = before.current_state;
  const waiting = current === 'unscheduled' || current === 'unstarted';
  if (input.group === 'current' && waiting && project.automatic_planning === false) return 'planned';
  return current === 'unscheduled' ? 'unstarted' : current;
}

/** accepted_at follows the state: set on entering accepted (client value or now), cleared on leaving. */
function acceptedAtAfter(
  before: StoryDoc,
  currentState: StoryState,
  requested: number | null | undefined,
  now: number,
): number | null | undefined {
  if (currentState !== 'accepted') return requested;
  if (typeof requested === 'number') return requested;
  return before.current_state === 'accepted' && before.accepted_at !== undefined ? before.accepted_at : now;
}

function rejectionCommentProblems(
  comment: RejectionComment | undefined,
  currentState: StoryState,
  actorId: number | null,
): ValidationError[] {
  if (comment === undefined) return [];
  if (typeof comment !== 'object' || comment === null || Array.isArray(comment)) {
    return [{ field: 'comment', problem: 'comment must be an object with text and/or file_attachments.' }];
  }
  if (comment.text !== undefined && typeof comment.text !== 'string') {
    return [{ field: 'comment', problem: 'comment text must be a string.' }];
  }
  if (comment.file_attachments !== undefined && !Array.isArray(comment.file_attachments)) {
    return [{ field: 'comment', problem: 'comment file_attachments must be an array.' }];
  }
  if (comment.file_attachments?.some((file) => typeof file !== 'object' || file === null || !Number.isSafeInteger(file.id))) {
    return [{ field: 'comment', problem: 'comment file_attachments must be the uploaded files, each with its id.' }];
  }
  if (currentState !== 'rejected') {
    return [{ field: 'comment', problem: 'A comment can only be sent when rejecting the story.' }];
  }
  if (actorId === null && rejectionComment(comment) !== null) {
    return [{ field: 'comment', problem: 'A comment needs a person to write it.' }];
  }
  return [];
}

/** The comment to create with a rejection, or null when there is none (no files, text absent or blank). */
function rejectionComment(comment: RejectionComment | undefined): NewComment | null {
  if (typeof comment !== 'object' || comment === null) return null;
  const text = typeof comment.text === 'string' && comment.text.trim() !== '' ? comment.text : undefined;
  const fileIds = (comment.file_attachments ?? []).map((file) => file.id);
  if (text === undefined && fileIds.length === 0) return null;
  return { ...(text !== undefined ? { text } : {}), file_attachment_ids: fileIds };
}

/** Sets the story's rank for its slot; returns its neighbours after the write. */
function placeStory(before: StoryDoc, after: StoryDoc, slot: Slot, positionBefore: Neighbours, field: string): Neighbours {
  const band = bandOf(after.current_state);
  const target = slotNeighbours(slot);
  const sameSlot = target.before_id === positionBefore.before_id && target.after_id === positionBefore.after_id;
  if (!sameSlot || band !== bandOf(before.current_state)) after.rank = rankInSlot(band, slot, field);
  return target;
}
