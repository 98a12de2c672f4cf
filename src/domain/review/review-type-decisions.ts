// Deciders for a project's review types (`kind` review_type: name, hidden). A name is unique within the
// project regardless of case and surrounding spaces. Deleting a type deletes the reviews of that type
// with it, in the same event (each of their stories' updated_at touched), as deleting a label takes it
// off its stories: hiding it (`hidden: true`) is the way to retire a type and keep its reviews.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { changedValues } from '../changed-values.js';
import { DomainError, invalidField } from '../errors.js';
import type { EventType, DecidedChange, ResourceRef } from '../events.js';
import { storyUpdateChange } from '../story/story-changes.js';
import {
  MAX_REVIEW_TYPE_NAME,
  newReviewType,
  reviewDeleteChange,
  reviewTypeCreateChange,
  reviewTypeOf,
  reviewsOfType,
  type ReviewTypeDoc,
} from './review-state.js';

export interface CreateReviewTypeInput {
  name: string;
  hidden?: boolean;
}

export interface UpdateReviewTypeInput {
  review_type_id: number;
  name?: string;
  hidden?: boolean;
}

export interface DeleteReviewTypeInput {
  review_type_id: number;
}

export function decideCreateReviewType(input: CreateReviewTypeInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const name = reviewTypeName(state, input.name, null);
  const type = newReviewType(state.projectId, name, input.hidden ?? false, context.nextId('review_type'), context.now);
  return reviewTypeDecision('review_type_create', type, reviewTypeCreateChange(type));
}

export function decideUpdateReviewType(input: UpdateReviewTypeInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const before = reviewTypeOf(state, input.review_type_id);
  if (input.name === undefined && input.hidden === undefined) {
    throw new DomainError('invalid_parameter', {
      general_problem: 'this endpoint requires at least one of the following parameters: hidden, name',
      validation_errors: [{ field: 'name', problem: 'Send a name or hidden.' }],
    });
  }
  const after: ReviewTypeDoc = {
    ...before,
    ...(input.name !== undefined ? { name: reviewTypeName(state, input.name, before.id) } : {}),
    ...(input.hidden !== undefined ? { hidden: input.hidden } : {}),
    updated_at: context.now,
  };
  const change: DecidedChange = { kind: 'review_type', change_type: 'update', id: after.id, name: after.name, ...changedValues(before, after, ['name', 'hidden']) };
  return reviewTypeDecision('review_type_update', after, change);
}

/** Deletes the type and every review of it (their stories touched), in one event. */
export function decideDeleteReviewType(input: DeleteReviewTypeInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const type = reviewTypeOf(state, input.review_type_id);
  const changes: DecidedChange[] = [{ kind: 'review_type', change_type: 'delete', id: type.id, name: type.name, original_values: { ...type } }];
  const touched = new Set<number>();
  for (const review of reviewsOfType(state, type.id)) {
    changes.push(reviewDeleteChange(review, type.name));
    touched.add(review.story_id);
  }
  for (const storyId of touched) {
    const story = state.stories.get(storyId);
    if (story) changes.push(storyUpdateChange(story, { updated_at: story.updated_at }, { updated_at: context.now }));
  }
  return { type: 'review_type_delete', data: { changes, primary_resources: [reviewTypeRef(type)] }, subject: { kind: 'review_type', id: type.id } };
}

/** The name a write gives a type (trimmed), checked: not blank, not too long, not another type's. */
function reviewTypeName(state: ProjectState, name: string, ownId: number | null): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed === '') throw invalidField('name', "Name can't be blank");
  if (trimmed.length > MAX_REVIEW_TYPE_NAME) throw invalidField('name', `'name' parameter must be ${MAX_REVIEW_TYPE_NAME} characters or less.`);
  const other = state.reviewTypeNamed(trimmed);
  if (other && other.id !== ownId) throw invalidField('name', 'Name has already been taken');
  return trimmed;
}

function reviewTypeDecision(type: EventType, reviewType: ReviewTypeDoc, change: DecidedChange): Decision {
  return { type, data: { changes: [change], primary_resources: [reviewTypeRef(reviewType)] }, subject: { kind: 'review_type', id: reviewType.id } };
}

function reviewTypeRef(type: ReviewTypeDoc): ResourceRef {
  return { kind: 'review_type', id: type.id, name: type.name };
}
