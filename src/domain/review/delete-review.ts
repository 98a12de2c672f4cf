// Deleting a review of a story.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { reviewDeleteChange, reviewOf, reviewTypeName } from './review-state.js';
import { reviewDecision } from './review-rules.js';

export interface DeleteReviewCommand {
  story_id: number;
  review_id: number;
}

export function decideDeleteReview(command: DeleteReviewCommand, state: ProjectState, context: DecisionContext): Decision {
  const story = state.stories.required(command.story_id);
  const review = reviewOf(state, story.id, command.review_id);
  return reviewDecision('review_delete', story, review, reviewDeleteChange(review, reviewTypeName(state, review)), context);
}
