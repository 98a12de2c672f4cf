// Tracker's code-review workflow as a project's state holds it: review types (the kinds of review a
// project asks for: "Code", "Design", ...) and the reviews of its stories (a type, an optional reviewer
// and a status). Review types live in the project like labels; reviews live inside their story like
// blockers (project-state.ts storyContents), so they go and move with it. Read-only look-ups and
// the changes every review decider shares.
import { reviewTypeKey, type ProjectState } from '../project-state.js';
import { unfound } from '../errors.js';
import type { ResourceChange } from '../events.js';
import type { ResourceDoc } from '../resource-state.js';

/** facts §5 (`review_status:`) and the recorded reviews. */
export const REVIEW_STATUSES = ['unstarted', 'in_review', 'pass', 'revise'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** The types a new project starts with, as Tracker's projects did (recorded: created with the project). */
export const DEFAULT_REVIEW_TYPE_NAMES: readonly string[] = ['Test (QA)', 'Design', 'Code', 'Security'];

export const MAX_REVIEW_TYPE_NAME = 255;

export interface ReviewTypeDoc extends ResourceDoc {
  project_id: number;
  name: string;
  /** A hidden type is no longer offered for new reviews; its reviews stay. */
  hidden: boolean;
  created_at: number;
  updated_at: number;
}

export interface ReviewDoc extends ResourceDoc {
  story_id: number;
  review_type_id: number;
  reviewer_id?: number;
  status: ReviewStatus;
  created_at: number;
  updated_at: number;
}

export function isReviewStatus(value: unknown): value is ReviewStatus {
  return typeof value === 'string' && (REVIEW_STATUSES as readonly string[]).includes(value);
}

/** The review of that story, or unfound (also when it belongs to another story). */
export function reviewOf(state: ProjectState, storyId: number, reviewId: number): ReviewDoc {
  const review = state.reviews.get(reviewId);
  if (!review || review.story_id !== storyId) throw unfound();
  return review;
}

/** Every review of a type, by id. */
export function reviewsOfType(state: ProjectState, typeId: number): ReviewDoc[] {
  return [...state.reviews].filter((review) => review.review_type_id === typeId).sort((a, b) => a.id - b.id);
}

/** A new review type of the project (not yet in the state). */
export function newReviewType(projectId: number, name: string, hidden: boolean, id: number, now: number): ReviewTypeDoc {
  return { id, project_id: projectId, name, hidden, created_at: now, updated_at: now };
}

export function reviewTypeCreateChange(type: ReviewTypeDoc): ResourceChange<'review_type'> {
  return { kind: 'review_type', change_type: 'create', id: type.id, name: type.name, new_values: { ...type } };
}

/** The review types a new project starts with. */
export function defaultReviewTypes(projectId: number, nextId: () => number, now: number): ReviewTypeDoc[] {
  return DEFAULT_REVIEW_TYPE_NAMES.map((name) => newReviewType(projectId, name, false, nextId(), now));
}

/** Every change of a review is named by its type's name (the feed quotes it). */
export function reviewChangeHead(review: ReviewDoc, typeName: string): Pick<ResourceChange<'review'>, 'kind' | 'id' | 'name'> {
  return { kind: 'review', id: review.id, name: typeName };
}

export function reviewCreateChange(review: ReviewDoc, typeName: string): ResourceChange<'review'> {
  return { ...reviewChangeHead(review, typeName), change_type: 'create', new_values: { ...review } };
}

/** The delete change of a review, whether it goes alone, with its story or with its type. */
export function reviewDeleteChange(review: ReviewDoc, typeName: string): ResourceChange<'review'> {
  return { ...reviewChangeHead(review, typeName), change_type: 'delete', original_values: { ...review } };
}

/** The name of a review's type as the state holds it ('' for a type that is gone). */
export function reviewTypeName(state: ProjectState, review: ReviewDoc): string {
  return state.reviewTypes.get(review.review_type_id)?.name ?? '';
}

/**
 * The target project's types for reviews moved in from another project (types are per project): each
 * source type matched by name, created in the target (hidden as it was) when the target has none of that
 * name. Returns the target id of each source type id and the types created.
 */
export function matchReviewTypes(
  target: ProjectState,
  sourceTypes: readonly ReviewTypeDoc[],
  targetProjectId: number,
  nextId: () => number,
  now: number,
): { idOf: Map<number, number>; created: ReviewTypeDoc[] } {
  const idOf = new Map<number, number>();
  const created: ReviewTypeDoc[] = [];
  for (const source of sourceTypes) {
    const match = target.reviewTypeNamed(source.name) ?? created.find((type) => reviewTypeKey(type.name) === reviewTypeKey(source.name));
    if (match) {
      idOf.set(source.id, match.id);
      continue;
    }
    const type = newReviewType(targetProjectId, source.name, source.hidden, nextId(), now);
    created.push(type);
    idOf.set(source.id, type.id);
  }
  return { idOf, created };
}
