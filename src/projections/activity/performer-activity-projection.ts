// The performer index of the activity feed: one document per project event that a person performed,
// so that `/my/activity` finds the caller's events newest first without reading any stream. It holds
// no activity content: the feed renders the events themselves (src/domain/activity/render-activity.ts).
import { projectIdOfStream, type RecordedEvent } from '../../domain/events.js';
import type { PerformerActivityReadDoc } from '../documents.js';
import type { Projection, ProjectedWrite } from '../projection.js';

export const ACTIVITY_BY_PERFORMER = 'activity_by_performer';

export const performerActivityProjection: Projection = {
  name: 'performer_activity',
  version: 2, // 2: whole-second datetimes (event schema 2)
  collections: [{ name: ACTIVITY_BY_PERFORMER, indexes: [{ field: 'person_id' }] }],
  apply(event: RecordedEvent): ProjectedWrite[] {
    const projectId = projectIdOfStream(event.stream);
    const personId = event.meta.performed_by;
    if (projectId === null || personId === null) return [];
    const entry: PerformerActivityReadDoc = {
      id: event.position,
      person_id: personId,
      project_id: projectId,
      version: event.version,
      occurred_at: event.meta.occurred_at,
    };
    // The runner stamps `_pos`; an insert of an id that exists is skipped, so a replay writes nothing twice.
    return [{ collection: ACTIVITY_BY_PERFORMER, ops: [{ op: 'insert', doc: { ...entry } }] }];
  },
};
