// The state transitions of stories (facts §12 story_transition), the source of analytics and cycle
// time: one document per story entering a state, from the story's creation (its first state, marked
// `created`) and from every update that changes `current_state`. Moving a story between projects does
// not change its state, so the move records none: a story's transitions follow it by `story_id`.
//
// `id` = event position × 1000 + the change's index in the event (analytics-keys.ts), so a replay inserts
// the same ids and the read store skips them.
// `week_key` = `<project>:<UTC week of occurred_at>` (indexed): analytics of an iteration read the
// transitions of the weeks its span covers, never the project's whole history. A creation also carries
// the story's own `created_at` (which a client may set, as every imported story does) and
// `created_week_key` = `<project>:<UTC week of created_at>` (indexed): bugs_created counts the bugs whose
// created_at falls in the iteration, read by the weeks it covers.
import { projectIdOfStream, type RecordedEvent } from '../../domain/events.js';
import type { WriteOp } from '../../ports/read-store.js';
import type { StoryTransitionReadDoc } from '../documents.js';
import { changeDocumentId, weekKey } from './analytics-keys.js';
import type { ProjectedWrite, Projection } from '../projection.js';
import { STORY_HISTORY, storyHistoryWrites } from './story-history.js';

export const STORY_TRANSITIONS = 'story_transitions';


function transitionWrites(event: RecordedEvent): ProjectedWrite[] {
  const projectId = projectIdOfStream(event.stream);
  if (projectId === null || event.type.startsWith('story_move')) return [];
  const ops: WriteOp[] = [];
  event.data.changes.forEach((change, index) => {
    if (change.kind !== 'story' || change.change_type === 'delete') return;
    const state = change.new_values?.['current_state'];
    if (typeof state !== 'string') return;
    const doc: StoryTransitionReadDoc = {
      id: changeDocumentId(event, index),
      story_id: change.id,
      project_id: projectId,
      state,
      project_version: event.version,
      occurred_at: event.meta.occurred_at,
      week_key: weekKey(projectId, event.meta.occurred_at),
    };
    if (event.meta.performed_by !== null) doc.performed_by_id = event.meta.performed_by;
    if (change.change_type === 'create') {
      doc.created = true;
      if (typeof change.new_values?.['story_type'] === 'string') doc.story_type = change.new_values['story_type'];
      const createdAt = change.new_values?.['created_at'];
      doc.created_at = typeof createdAt === 'number' ? createdAt : event.meta.occurred_at;
      doc.created_week_key = weekKey(projectId, doc.created_at);
    }
    ops.push({ op: 'insert', doc });
  });
  return ops.length > 0 ? [{ collection: STORY_TRANSITIONS, ops }] : [];
}

/** The analytics read model: the transitions, and each story's history for the daily history (story-history.ts). */
export const storyTransitionsProjection: Projection = {
  name: 'analytics',
  version: 3, // 2: whole-second datetimes (event schema 2); 3: creations carry created_at (bugs_created), story_history
  collections: [
    { name: STORY_TRANSITIONS, indexes: [{ field: 'story_id' }, { field: 'week_key' }, { field: 'created_week_key' }] },
    { name: STORY_HISTORY, indexes: [{ field: 'story_id' }, { field: 'accepted_week_key' }] },
  ],
  apply: (event) => [...transitionWrites(event), ...storyHistoryWrites(event)],
};
