// The story / epic index of the activity feed: one document per project event that belongs to at least
// one story or epic (src/domain/activity/activity-subjects.ts), listing them as `subjects` keys
// (`story-12`, `epic-3`), indexed multikey, so that a story's or epic's feed pages newest first without
// scanning its project's stream.
import { activitySubjects, type ActivitySubject } from '../../domain/activity/activity-subjects.js';
import { projectIdOfStream, type RecordedEvent } from '../../domain/events.js';
import type { SubjectActivityReadDoc } from '../documents.js';
import type { Projection, ProjectedWrite } from '../projection.js';

export const ACTIVITY_BY_RESOURCE = 'activity_by_resource';

/** The index key of a story or epic. */
export function subjectKey(subject: ActivitySubject): string {
  return `${subject.kind}-${subject.id}`;
}

export const subjectActivityProjection: Projection = {
  name: 'subject_activity',
  version: 2, // 2: whole-second datetimes (event schema 2)
  collections: [{ name: ACTIVITY_BY_RESOURCE, indexes: [{ field: 'subjects' }] }],
  apply(event: RecordedEvent): ProjectedWrite[] {
    const projectId = projectIdOfStream(event.stream);
    if (projectId === null) return [];
    const subjects = activitySubjects(event.data).map(subjectKey);
    if (subjects.length === 0) return [];
    const entry: SubjectActivityReadDoc = {
      id: event.position,
      subjects,
      project_id: projectId,
      version: event.version,
      occurred_at: event.meta.occurred_at,
    };
    // The runner stamps `_pos`; an insert of an id that exists is skipped, so a replay writes nothing twice.
    return [{ collection: ACTIVITY_BY_RESOURCE, ops: [{ op: 'insert', doc: { ...entry } }] }];
  },
};
