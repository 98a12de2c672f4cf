// GET /projects/{id}/stories/{id}/transitions (facts §12 story_transition; paginated, default 100):
// the states a story entered, oldest first, from its creation on (across moves between projects).
import { unfound } from '../../domain/errors.js';
import { MAX_PAGE_LIMIT } from '../page.js';
import type { QueryCollection } from '../iterations/iteration-timeline.js';
import type { StoryReadDoc, StoryTransitionReadDoc } from '../../projections/documents.js';

export interface StoryTransition {
  kind: 'story_transition';
  state: string;
  story_id: number;
  project_id: number;
  project_version: number;
  /** ms */
  occurred_at: number;
  performed_by_id?: number;
}

export interface TransitionPage {
  transitions: StoryTransition[];
  total: number;
  offset: number;
  limit: number;
  returned: number;
}

export interface TransitionReads {
  stories: QueryCollection<StoryReadDoc> & { count(filter: Record<string, unknown>): Promise<number> };
  storyTransitions: QueryCollection<StoryTransitionReadDoc> & { count(filter: Record<string, unknown>): Promise<number> };
}

/** `offset` and `limit` ≥ 0 as the API validated them (limit 0: only the total); larger limits are reduced to 500. */
export async function listStoryTransitions(
  reads: TransitionReads,
  request: { projectId: number; storyId: number; offset: number; limit: number },
): Promise<TransitionPage> {
  if (!(await reads.stories.findOne({ id: request.storyId, project_id: request.projectId }))) throw unfound();
  const limit = Math.min(request.limit, MAX_PAGE_LIMIT);
  const filter = { story_id: request.storyId };
  const [docs, total] = await Promise.all([
    limit === 0 ? [] : reads.storyTransitions.find(filter, { sort: { id: 1 }, skip: request.offset, limit }),
    reads.storyTransitions.count(filter),
  ]);
  const transitions = docs.map((doc): StoryTransition => ({
    kind: 'story_transition',
    state: doc.state,
    story_id: request.storyId,
    project_id: doc.project_id,
    project_version: doc.project_version,
    occurred_at: doc.occurred_at,
    ...(typeof doc.performed_by_id === 'number' ? { performed_by_id: doc.performed_by_id } : {}),
  }));
  return { transitions, total, offset: request.offset, limit, returned: transitions.length };
}
