// Deciders for a project's review types (`kind` review_type: name, hidden). A name is unique within the
// project regardless of case and surrounding spaces. Deleting a type deletes the reviews of that type
// with it, in the same event (each of their stories' updated_at touched), as deleting a label takes it
// off its stories: hiding it (`hidden: true`) is the way to retire a type and keep its reviews.
// What its deciders (create-review-type.ts, update-review-type.ts, delete-review-type.ts) share.
import type { ProjectState } from '../project-state.js';
import type { Decision } from '../decision.js';
import { invalidField } from '../errors.js';
import type { EventType, DecidedChange, ResourceRef } from '../events.js';
import { MAX_REVIEW_TYPE_NAME, type ReviewTypeDoc } from './review-state.js';

/** The name a write gives a type (trimmed), checked: not blank, not too long, not another type's. */
export function reviewTypeName(state: ProjectState, name: string, ownId: number | null): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed === '') throw invalidField('name', "Name can't be blank");
  if (trimmed.length > MAX_REVIEW_TYPE_NAME) throw invalidField('name', `'name' parameter must be ${MAX_REVIEW_TYPE_NAME} characters or less.`);
  const other = state.reviewTypeNamed(trimmed);
  if (other && other.id !== ownId) throw invalidField('name', 'Name has already been taken');
  return trimmed;
}

export function reviewTypeDecision(type: EventType, reviewType: ReviewTypeDoc, change: DecidedChange): Decision {
  return { type, data: { changes: [change], primary_resources: [reviewTypeRef(reviewType)] }, subject: { kind: 'review_type', id: reviewType.id } };
}

export function reviewTypeRef(type: ReviewTypeDoc): ResourceRef {
  return { kind: 'review_type', id: type.id, name: type.name };
}
