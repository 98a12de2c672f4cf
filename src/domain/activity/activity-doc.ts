// The shape of one activity as the feed renders it (spec "Events", facts §9.1). An activity is not
// stored anywhere: it is one project event, rendered at read time by render-activity.ts.
import type { ResourceChange, ResourceRef } from '../events.js';

/** A change as the feed shows it: the event's change without its internal `rank`, values copied. */
export type ActivityChange = Omit<ResourceChange, 'rank'>;

/** A primary or secondary resource: kind, id, name, and for stories story_type, url, story_priority. */
export interface ActivityResource extends ResourceRef {
  url?: string;
}

export interface ActivityPerformer {
  kind: 'person';
  /** Absent for events written by the operator or the system (no acting person). */
  id?: number;
  name: string;
  initials: string;
}

export interface ActivityDoc {
  kind: string;
  /** `<project_id>_<project_version>`. */
  guid: string;
  project_version: number;
  /** English summary; always contains `highlight`. Not stable: clients parse `changes` instead. */
  message: string;
  highlight: string;
  changes: ActivityChange[];
  primary_resources: ActivityResource[];
  secondary_resources: ActivityResource[];
  project: { kind: 'project'; id: number; name: string };
  performed_by: ActivityPerformer;
  /** ms since the epoch; the API serializer renders it ISO 8601 or millis. */
  occurred_at: number;
  /** Plain ids, selectable with `fields` (facts §9.1). */
  project_id: number;
  performed_by_id: number | null;
}

/** The person an event's `meta.performed_by` names, as the people read model knows them. */
export interface PerformerInfo {
  id: number;
  name: string;
  initials: string;
}

/** What rendering needs besides the event: everything that is read-time knowledge. */
export interface RenderContext {
  projectId: number;
  /** The project's current name. */
  projectName: string;
  /** The acting person, or null when the event has none or the person is unknown. */
  performer: PerformerInfo | null;
  /** Web address of a story (`http://<host>/story/show/<id>`). */
  storyUrl(id: number): string;
  /** Web address of an epic (`http://<host>/epic/show/<id>`). */
  epicUrl(id: number): string;
}
