// The keys of the analytics documents: their ids, one per story change of an event (event position ×
// 1000 + the change's index, so ids follow the log and a replay inserts the same ones), and the keys
// grouping a project's documents by the UTC week of one of their times, so a query of a span reads the
// weeks it covers (indexed), never the project's whole history.
import type { RecordedEvent } from '../../domain/events.js';
import { utcWeekOf } from '../iterations/iteration-stories-projection.js';

/** Changes per event a document id has room for (an event lists far fewer). */
export const CHANGES_PER_EVENT = 1000;

/** The id of the document made from change `index` of `event`. */
export function changeDocumentId(event: RecordedEvent, index: number): number {
  if (index >= CHANGES_PER_EVENT) throw new Error(`event ${event.position} lists more than ${CHANGES_PER_EVENT} changes`);
  return event.position * CHANGES_PER_EVENT + index;
}

/** `<project>:<UTC week of at>`. */
export function weekKey(projectId: number, at: number): string {
  return `${projectId}:${utcWeekOf(at)}`;
}

/** The keys of the weeks [from, to) touches. */
export function weekKeys(projectId: number, from: number, to: number): string[] {
  const keys: string[] = [];
  for (let week = utcWeekOf(from); week <= utcWeekOf(to - 1); week++) keys.push(`${projectId}:${week}`);
  return keys;
}
