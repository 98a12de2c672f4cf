// Renaming a review type or hiding it (a hidden type is offered for no new review; its reviews stay).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { changedValues } from '../changed-values.js';
import { DomainError } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { type ReviewTypeDoc } from './review-state.js';
import { reviewTypeName, reviewTypeDecision } from './review-type-rules.js';

export interface UpdateReviewTypeInput {
  review_type_id: number;
  name?: string;
  hidden?: boolean;
}

export function decideUpdateReviewType(input: UpdateReviewTypeInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const before = state.reviewTypes.required(input.review_type_id);
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
