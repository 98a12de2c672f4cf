// Deciders for a story's reviews (`kind` review: review_type_id, reviewer_id, status). A review names a
// review type of the project (a hidden one only for reviews that already have it), optionally a reviewer
// who can work on the project (an owner or member: a viewer cannot review), and a status (default
// `unstarted`). Every review write touches its story's updated_at, as task and blocker writes do.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { changedValues } from '../changed-values.js';
import { invalidField, invalidParameter, type ValidationError } from '../errors.js';
import type { EventType, DecidedChange } from '../events.js';
import type { StoryDoc } from '../project-documents.js';
import { storyRef, storyUpdateChange } from '../story/story-changes.js';
import {
  REVIEW_STATUSES,
  findReviewType,
  isReviewStatus,
  reviewChangeHead,
  reviewCreateChange,
  reviewDeleteChange,
  reviewOf,
  reviewTypeName,
  type ReviewDoc,
  type ReviewStatus,
} from './review-state.js';

/** The most reviews one story create may carry (bounds the loop over them). */
export const MAX_NESTED_REVIEWS = 100;

/** A review as a request creates it (alone, or nested in a story create). */
export interface NewReview {
  review_type_id: number;
  reviewer_id?: number | null;
  status?: string;
}

export interface CreateReviewCommand extends NewReview {
  story_id: number;
}

export interface UpdateReviewCommand {
  story_id: number;
  review_id: number;
  review_type_id?: number;
  reviewer_id?: number | null;
  status?: string;
}

export interface DeleteReviewCommand {
  story_id: number;
  review_id: number;
}

export function decideCreateReview(command: CreateReviewCommand, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(command.story_id);
  const [review] = newReviews(state, story.id, [command], '', context);
  return reviewDecision('review_create', story, review!, reviewCreateChange(review!, reviewTypeName(state, review!)), context);
}

export function decideUpdateReview(command: UpdateReviewCommand, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(command.story_id);
  const before = reviewOf(state, story.id, command.review_id);
  const problems: ValidationError[] = [];
  if (command.review_type_id !== undefined && command.review_type_id !== before.review_type_id) {
    problems.push(...typeProblems(state, command.review_type_id, 'review_type_id'));
  }
  if (typeof command.reviewer_id === 'number' && command.reviewer_id !== before.reviewer_id) {
    problems.push(...reviewerProblems(state, command.reviewer_id, 'reviewer_id'));
  }
  if (command.status !== undefined) problems.push(...statusProblems(command.status, 'status'));
  if (problems.length > 0) throw invalidParameter(problems);
  const after: ReviewDoc = {
    ...before,
    ...(command.review_type_id !== undefined ? { review_type_id: command.review_type_id } : {}),
    ...(command.status !== undefined ? { status: command.status as ReviewStatus } : {}),
    updated_at: context.now,
  };
  if (command.reviewer_id === null) delete after.reviewer_id;
  else if (command.reviewer_id !== undefined) after.reviewer_id = command.reviewer_id;
  const change: DecidedChange = {
    ...reviewChangeHead(after, reviewTypeName(state, after)),
    change_type: 'update',
    ...changedValues(before, after, ['review_type_id', 'reviewer_id', 'status']),
  };
  return reviewDecision('review_update', story, after, change, context);
}

export function decideDeleteReview(command: DeleteReviewCommand, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(command.story_id);
  const review = reviewOf(state, story.id, command.review_id);
  return reviewDecision('review_delete', story, review, reviewDeleteChange(review, reviewTypeName(state, review)), context);
}

/** New reviews of a story (which may be created in the same event); `field` names the request key ('' alone). */
export function newReviews(state: ProjectState, storyId: number, inputs: readonly NewReview[], field: string, context: DecisionContext): ReviewDoc[] {
  if (inputs.length > MAX_NESTED_REVIEWS) throw invalidField(field || 'reviews', `At most ${MAX_NESTED_REVIEWS} reviews per request.`);
  const problems: ValidationError[] = [];
  for (const input of inputs) {
    problems.push(...typeProblems(state, input.review_type_id, field || 'review_type_id'));
    if (typeof input.reviewer_id === 'number') problems.push(...reviewerProblems(state, input.reviewer_id, field || 'reviewer_id'));
    if (input.status !== undefined) problems.push(...statusProblems(input.status, field || 'status'));
  }
  if (problems.length > 0) throw invalidParameter(problems);
  return inputs.map((input) => ({
    id: context.nextId('review'),
    story_id: storyId,
    review_type_id: input.review_type_id,
    ...(typeof input.reviewer_id === 'number' ? { reviewer_id: input.reviewer_id } : {}),
    status: (input.status ?? 'unstarted') as ReviewStatus,
    created_at: context.now,
    updated_at: context.now,
  }));
}

function typeProblems(state: ProjectState, typeId: unknown, field: string): ValidationError[] {
  const type = typeof typeId === 'number' ? findReviewType(state, typeId) : undefined;
  if (!type) return [{ field, problem: `Review type ${String(typeId)} is not a review type of this project.` }];
  if (type.hidden) return [{ field, problem: `Review type "${type.name}" is hidden: new reviews cannot use it.` }];
  return [];
}

function reviewerProblems(state: ProjectState, personId: number, field: string): ValidationError[] {
  const role = state.membershipOf(personId)?.role;
  if (role === undefined) return [{ field, problem: `Person ${personId} is not a member of this project.` }];
  if (role === 'viewer') return [{ field, problem: `Person ${personId} is a viewer of this project and cannot review.` }];
  return [];
}

function statusProblems(status: unknown, field: string): ValidationError[] {
  return isReviewStatus(status) ? [] : [{ field, problem: `status must be one of ${REVIEW_STATUSES.join(', ')}.` }];
}

/** The one way every review decision is built: the review's change and its story's touch. */
function reviewDecision(type: EventType, story: StoryDoc, review: ReviewDoc, change: DecidedChange, context: DecisionContext): Decision {
  const touch = storyUpdateChange(story, { updated_at: story.updated_at }, { updated_at: context.now });
  return { type, data: { changes: [change, touch], primary_resources: [storyRef(story)] }, subject: { kind: 'review', id: review.id } };
}
