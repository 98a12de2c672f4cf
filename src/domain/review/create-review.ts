// Creating a review of a story: a type of the project, an optional reviewer who is a member, a status.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { reviewCreateChange, reviewTypeName } from './review-state.js';
import { type NewReview, newReviews, reviewDecision } from './review-rules.js';

export interface CreateReviewCommand extends NewReview {
  story_id: number;
}

export function decideCreateReview(command: CreateReviewCommand, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(command.story_id);
  const [review] = newReviews(state, story.id, [command], '', context);
  return reviewDecision('review_create', story, review!, reviewCreateChange(review!, reviewTypeName(state, review!)), context);
}
