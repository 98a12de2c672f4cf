// Creating a review type of a project under a name no other type of it holds.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { newReviewType, reviewTypeCreateChange } from './review-state.js';
import { reviewTypeName, reviewTypeDecision } from './review-type-rules.js';

export interface CreateReviewTypeInput {
  name: string;
  hidden?: boolean;
}

export function decideCreateReviewType(input: CreateReviewTypeInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const name = reviewTypeName(state, input.name, null);
  const type = newReviewType(state.projectId, name, input.hidden ?? false, context.nextId('review_type'), context.now);
  return reviewTypeDecision('review_type_create', type, reviewTypeCreateChange(type));
}
