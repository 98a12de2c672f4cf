// The CSV of a release's stories, with the spec's columns: State, Accepted at (<time zone>), Type,
// Estimate, Title, ID, Labels, then one "Owned By" column per owner (at least two, as many as the
// story with the most owners needs). Accepted times are written in the project's time zone as
// `YYYY-MM-DD HH:MM:SS`; labels are comma-separated names; written by the one CSV writer
// (src/domain/csv.ts).
import { csvTable } from '../../domain/csv.js';
import type { StoryReadDoc } from '../../projections/documents.js';
import { idsOf, ownerColumnCount, ownerFields } from '../../queries/csv-table.js';

export interface ReleaseCsvContext {
  /** IANA name of the project's time zone. */
  timeZone: string;
  labelName: ReadonlyMap<number, string>;
  personName: ReadonlyMap<number, string>;
}

export function releaseStoriesCsv(stories: readonly StoryReadDoc[], context: ReleaseCsvContext): string {
  const ownerColumns = ownerColumnCount(stories);
  const header = ['State', `Accepted at (${context.timeZone})`, 'Type', 'Estimate', 'Title', 'ID', 'Labels', ...Array<string>(ownerColumns).fill('Owned By')];
  const format = localTimeFormat(context.timeZone);
  const rows = stories.map((story) => [
    story.current_state,
    typeof story.accepted_at === 'number' ? format(story.accepted_at) : null,
    story.story_type,
    typeof story.estimate === 'number' ? story.estimate : null,
    story.name,
    story.id,
    idsOf(story.label_ids).map((id) => context.labelName.get(id) ?? '').join(', '),
    ...ownerFields(story, context.personName, ownerColumns),
  ]);
  return csvTable([header, ...rows]);
}

function localTimeFormat(timeZone: string): (ms: number) => string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return (ms) => {
    const get = Object.fromEntries(parts.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
    return `${get.year}-${get.month}-${get.day} ${get.hour}:${get.minute}:${get.second}`;
  };
}
