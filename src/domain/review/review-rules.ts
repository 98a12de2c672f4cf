// Deciders for a story's reviews (`kind` review: review_type_id, reviewer_id, status). A review names a
// review type of the project (a hidden one only for reviews that already have it), optionally a reviewer
// who can work on the project (an owner or member: a viewer cannot review), and a status (default
// `unstarted`). Every review write touches its story's updated_at, as task and blocker writes do.
// What its deciders (create-review.ts, update-review.ts, delete-review.ts) share.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { invalidField, invalidParameter, type ValidationError } from '../errors.js';
import type { EventType, DecidedChange } from '../events.js';
import type { StoryDoc } from '../project-documents.js';
import { storyRef, storyUpdateChange } from '../story/story-changes.js';
import { REVIEW_STATUSES, isReviewStatus, type ReviewDoc, type ReviewStatus } from './review-state.js';

/** The most reviews one story create may carry (bounds the loop over them). */
export const MAX_NESTED_REVIEWS = 100;

/** A review as a request creates it (alone, or nested in a story create). */
export interface NewReview {
  review_type_id: number;
  reviewer_id?: number | null;
  status?: string;
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

export function typeProblems(state: ProjectState, typeId: unknown, field: string): ValidationError[] {
  const type = typeof typeId === 'number' ? state.reviewTypes.get(typeId) : undefined;
  if (!type) return [{ field, problem: `Review type ${String(typeId)} is not a review type of this project.` }];
  if (type.hidden) return [{ field, problem: `Review type "${type.name}" is hidden: new reviews cannot use it.` }];
  return [];
}

export function reviewerProblems(state: ProjectState, personId: number, field: string): ValidationError[] {
  const role = state.membershipOf(personId)?.role;
  if (role === undefined) return [{ field, problem: `Person ${personId} is not a member of this project.` }];
  if (role === 'viewer') return [{ field, problem: `Person ${personId} is a viewer of this project and cannot review.` }];
  return [];
}

export function statusProblems(status: unknown, field: string): ValidationError[] {
  return isReviewStatus(status) ? [] : [{ field, problem: `status must be one of ${REVIEW_STATUSES.join(', ')}.` }];
}

/** The one way every review decision is built: the review's change and its story's touch. */
export function reviewDecision(type: EventType, story: StoryDoc, review: ReviewDoc, change: DecidedChange, context: DecisionContext): Decision {
  const touch = storyUpdateChange(story, { updated_at: story.updated_at }, { updated_at: context.now });
  return { type, data: { changes: [change, touch], primary_resources: [storyRef(story)] }, subject: { kind: 'review', id: review.id } };
}
