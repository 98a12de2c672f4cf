// Deleting a review type, and its reviews with it (their stories touched).
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import type { DecidedChange } from '../events.js';
import { storyUpdateChange } from '../story/story-changes.js';
import { reviewDeleteChange, reviewsOfType } from './review-state.js';
import { reviewTypeRef } from './review-type-rules.js';

export interface DeleteReviewTypeInput {
  review_type_id: number;
}

/** Deletes the type and every review of it (their stories touched), in one event. */
export function decideDeleteReviewType(input: DeleteReviewTypeInput, state: ProjectState, context: DecisionContext): Decision {
  state.project();
  const type = state.reviewTypes.required(input.review_type_id);
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
