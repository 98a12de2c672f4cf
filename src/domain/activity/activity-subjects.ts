// Which stories and epics an event belongs to, for the story and epic activity feeds: the event changes
// the story (or epic) itself, a task, blocker, review or comment of it, or names it as a primary
// resource (a comment or task activity names its story there, facts §9.3).
import type { EventData, ResourceChange } from '../events.js';

export type ActivitySubjectKind = 'story' | 'epic';

export interface ActivitySubject {
  kind: ActivitySubjectKind;
  id: number;
}

/** Children whose changes belong to their parent's feed, with the attribute naming the parent. */
const PARENT_KEYS: Readonly<Record<string, ReadonlyArray<[ActivitySubjectKind, string]>>> = {
  task: [['story', 'story_id']],
  blocker: [['story', 'story_id']],
  review: [['story', 'story_id']],
  comment: [
    ['story', 'story_id'],
    ['epic', 'epic_id'],
  ],
};

/** The distinct stories and epics an event belongs to, in first-seen order. */
export function activitySubjects(data: EventData): ActivitySubject[] {
  const seen = new Set<string>();
  const subjects: ActivitySubject[] = [];
  const add = (kind: ActivitySubjectKind, id: unknown): void => {
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) return;
    const key = `${kind}-${id}`;
    if (seen.has(key)) return;
    seen.add(key);
    subjects.push({ kind, id });
  };
  for (const change of data.changes ?? []) {
    if (change.kind === 'story' || change.kind === 'epic') add(change.kind, change.id);
    for (const [kind, key] of PARENT_KEYS[change.kind] ?? []) add(kind, parentId(change, key));
  }
  for (const ref of data.primary_resources ?? []) {
    if (ref.kind === 'story' || ref.kind === 'epic') add(ref.kind, ref.id);
  }
  return subjects;
}

function parentId(change: ResourceChange, key: string): unknown {
  return change.new_values?.[key] ?? change.original_values?.[key];
}
