// The CSV forms of iteration analytics (spec "Iterations": `.csv` suffix): one header line with the
// spec's columns, times in seconds (JSON has ms), one "Owned By" column per owner (at least two, as the
// spec lists), labels as comma-separated names; written by the one CSV writer (src/domain/csv.ts).
import { csvTable } from '../../domain/csv.js';
import type { CycleTimeDetails, IterationAnalytics } from '../../domain/iteration/cycle-time.js';
import type { StoryReadDoc } from '../../projections/documents.js';
import { idsOf, ownerColumnCount, ownerFields } from '../csv-table.js';

export const ANALYTICS_CSV_COLUMNS = ['stories_accepted', 'bugs_created', 'cycle_time', 'rejection_rate'] as const;

export interface CycleTimeCsvNames {
  labelName: ReadonlyMap<number, string>;
  personName: ReadonlyMap<number, string>;
}

export function analyticsCsv(analytics: IterationAnalytics): string {
  return csvTable([[...ANALYTICS_CSV_COLUMNS], ANALYTICS_CSV_COLUMNS.map((column) => analytics[column])]);
}

/** What a row of the cycle time CSV shows of its story. */
export type CycleTimeCsvStory = Pick<StoryReadDoc, 'id' | 'name' | 'current_state' | 'story_type' | 'estimate' | 'label_ids' | 'owner_ids'>;

export function cycleTimeDetailsCsv(rows: readonly { story: CycleTimeCsvStory; details: CycleTimeDetails }[], names: CycleTimeCsvNames): string {
  const ownerColumns = ownerColumnCount(rows.map(({ story }) => story));
  const header = [
    'State', 'Type', 'Estimate', 'Title', 'ID', 'Labels',
    'Total Cycle Time (Seconds)', 'Started Time (Seconds)', 'Started Count', 'Finished Time (Seconds)', 'Finished Count',
    'Delivered Time (Seconds)', 'Delivered Count', 'Rejected Time (Seconds)', 'Rejected Count',
    ...Array<string>(ownerColumns).fill('Owned By'),
  ];
  const lines = rows.map(({ story, details }) => [
    story.current_state,
    story.story_type,
    typeof story.estimate === 'number' ? story.estimate : null,
    story.name,
    story.id,
    idsOf(story.label_ids).map((id) => names.labelName.get(id) ?? '').join(', '),
    details.total_cycle_time === undefined ? null : seconds(details.total_cycle_time),
    seconds(details.started_time), details.started_count,
    seconds(details.finished_time), details.finished_count,
    seconds(details.delivered_time), details.delivered_count,
    seconds(details.rejected_time), details.rejected_count,
    ...ownerFields(story, names.personName, ownerColumns),
  ]);
  return csvTable([header, ...lines]);
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}