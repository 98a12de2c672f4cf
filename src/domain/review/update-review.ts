// Changing a review's type, reviewer or status; the change records only what differs.
import type { ProjectState } from '../project-state.js';
import type { Decision, DecisionContext } from '../decision.js';
import { changedValues } from '../changed-values.js';
import { invalidParameter, type ValidationError } from '../errors.js';
import type { DecidedChange } from '../events.js';
import { reviewChangeHead, reviewOf, reviewTypeName, type ReviewDoc, type ReviewStatus } from './review-state.js';
import { typeProblems, reviewerProblems, statusProblems, reviewDecision } from './review-rules.js';

export interface UpdateReviewCommand {
  story_id: number;
  review_id: number;
  review_type_id?: number;
  reviewer_id?: number | null;
  status?: string;
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
