// The `story_history` collection of the analytics projection: what a story's burn-up needs of its past,
// one document per change of a story's state, estimate or acceptance time in a project, its creation
// there (a create, or a move into the project) and its leaving (a delete, or a move out). Each document
// holds only what the change set (`values`: `current_state`, `estimate`, `accepted_at`, null when
// cleared) and when (`at`), so a story's state at any instant is the fold of its documents before it
// (domain/iteration/daily-history.ts).
//
// `at` is the event's occurred_at, except for a story created with times of the past (as every imported
// story is): created accepted, it counts from its accepted_at (what it was before is not known), else
// from its created_at. Later changes count from when they were written, so a back-dated acceptance does
// not rewrite days that have passed. Days are not projected: a day's end depends on the project's time
// zone and calendar, which may change later, so the daily history query cuts days at read time and a
// settings change needs no rebuild.
//
// `id` = event position × 1000 + the change's index, and `accepted_week_key` = `<project>:<UTC week of
// accepted_at>` (indexed) on documents that set accepted_at (analytics-keys.ts): the stories a done
// iteration held at its end are found by the weeks its span covers.
import { projectIdOfStream, type RecordedEvent, type Values } from '../../domain/events.js';
import type { StoryHistoryValues } from '../../domain/iteration/daily-history.js';
import type { WriteOp } from '../../ports/read-store.js';
import type { StoryHistoryReadDoc } from '../documents.js';
import { changeDocumentId, weekKey } from './analytics-keys.js';
import type { ProjectedWrite } from '../projection.js';

export const STORY_HISTORY = 'story_history';

const KEPT = ['current_state', 'estimate', 'accepted_at'] as const;

function keptValues(values: Values | undefined): StoryHistoryValues | null {
  const kept: Record<string, unknown> = {};
  let any = false;
  for (const key of KEPT) {
    if (!values || !Object.hasOwn(values, key)) continue;
    kept[key] = values[key] ?? null;
    any = true;
  }
  return any ? (kept as StoryHistoryValues) : null;
}

/** When a newly created story starts to count: its client-set past times, never after the write. */
function createdSince(values: StoryHistoryValues, created: Values | undefined, writtenAt: number): number {
  if (values.current_state === 'accepted' && typeof values.accepted_at === 'number') return Math.min(writtenAt, values.accepted_at);
  const createdAt = created?.['created_at'];
  return typeof createdAt === 'number' ? Math.min(writtenAt, createdAt) : writtenAt;
}

/** The history documents an event adds (none outside project streams). */
export function storyHistoryWrites(event: RecordedEvent): ProjectedWrite[] {
  const projectId = projectIdOfStream(event.stream);
  if (projectId === null) return [];
  const ops: WriteOp[] = [];
  event.data.changes.forEach((change, index) => {
    if (change.kind !== 'story') return;
    const values = change.change_type === 'delete' ? {} : keptValues(change.new_values);
    if (values === null) return;
    const at = event.type === 'story_create' && change.change_type === 'create' ? createdSince(values, change.new_values, event.meta.occurred_at) : event.meta.occurred_at;
    const doc: StoryHistoryReadDoc = { id: changeDocumentId(event, index), story_id: change.id, project_id: projectId, at, values };
    if (change.change_type === 'create') doc.created = true;
    if (change.change_type === 'delete') doc.deleted = true;
    if (typeof values.accepted_at === 'number') {
      doc.accepted_at = values.accepted_at;
      doc.accepted_week_key = weekKey(projectId, values.accepted_at);
    }
    ops.push({ op: 'insert', doc });
  });
  return ops.length > 0 ? [{ collection: STORY_HISTORY, ops }] : [];
}
