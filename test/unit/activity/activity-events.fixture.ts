// Small builders of recorded project events for the activity unit tests.
import type { EventData, EventType, RecordedEvent, ResourceChange, ResourceRef } from '../../../src/domain/events.js';
import type { RenderContext } from '../../../src/domain/activity/activity-doc.js';

export const PROJECT_ID = 99;
export const ALICE = { id: 7, name: 'Alice Adams', initials: 'AA' };
export const OCCURRED_AT = Date.UTC(2024, 2, 1, 12, 0, 0);

export function context(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    projectId: PROJECT_ID,
    projectName: 'Rocket',
    performer: ALICE,
    storyUrl: (id) => `http://tracker.test/story/show/${id}`,
    epicUrl: (id) => `http://tracker.test/epic/show/${id}`,
    ...overrides,
  };
}

export function projectEvent(
  /** Any string: rendering must cope with types this build does not know (a newer log). */
  type: string,
  data: Partial<EventData> & { changes: ResourceChange[] },
  overrides: Partial<RecordedEvent> = {},
): RecordedEvent {
  return {
    id: `event-${type}`,
    stream: `project-${PROJECT_ID}`,
    version: 12,
    position: 340,
    type: type as EventType,
    data: { primary_resources: [], ...data },
    meta: { schema: 1, occurred_at: OCCURRED_AT, performed_by: ALICE.id, command_id: 'command-1' },
    ...overrides,
  };
}

export const FEATURE: ResourceRef = { kind: 'story', id: 555, name: 'Launch', story_type: 'feature', story_priority: 'p2' };

export function storyChange(changeType: ResourceChange['change_type'], values: {
  original?: Record<string, unknown>;
  next?: Record<string, unknown>;
  storyType?: string;
} = {}): ResourceChange {
  const change: ResourceChange = {
    kind: 'story',
    change_type: changeType,
    id: FEATURE.id,
    name: FEATURE.name!,
    story_type: values.storyType ?? 'feature',
    story_priority: 'p2',
  };
  if (values.original) change.original_values = values.original;
  if (values.next) change.new_values = values.next;
  return change;
}

/** A story update event of the feature, with its primary resource. */
export function storyUpdate(original: Record<string, unknown>, next: Record<string, unknown>, storyType = 'feature'): RecordedEvent {
  return projectEvent('story_update', {
    changes: [storyChange('update', { original, next, storyType })],
    primary_resources: [{ ...FEATURE, story_type: storyType }],
  });
}
