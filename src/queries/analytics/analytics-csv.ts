// The CSV forms of iteration analytics (spec "Iterations": `.csv` suffix): one header line with the
// spec's columns, times in seconds (JSON has ms), one "Owned By" column per owner (at least two, as the
// spec lists), labels as comma-separated names; written by the one CSV writer (src/domain/csv.ts).
import { csvTable } from '../../domain/csv.js';
import type { IterationAnalytics } from '../../domain/iteration/cycle-time.js';
import { idsOf, ownerColumnCount, ownerFields } from '../csv-table.js';
import type { CycleTimeRow } from './analytics-query.js';

export const ANALYTICS_CSV_COLUMNS = ['stories_accepted', 'bugs_created', 'cycle_time', 'rejection_rate'] as const;

export interface CycleTimeCsvNames {
  labelName: ReadonlyMap<number, string>;
  personName: ReadonlyMap<number, string>;
}

export function analyticsCsv(analytics: IterationAnalytics): string {
  return csvTable([[...ANALYTICS_CSV_COLUMNS], ANALYTICS_CSV_COLUMNS.map((column) => analytics[column])]);
}

export function cycleTimeDetailsCsv(rows: readonly CycleTimeRow[], names: CycleTimeCsvNames): string {
  const ownerColumns = ownerColumnCount(rows.map(({ story }) => story));
  const header = [
    'State', 'Type', 'Estimate', 'Title', 'ID', 'Labels',
    'Total Cycle Time (Seconds)', 'Started Time (Seconds)', 'Started Count', 'Finished Time (Seconds)', 'Finished Count',
    'Delivered Time (Seconds)', 'Delivered Count', 'Rejected Time (Seconds)', 'Rejected Count',
    ...Array<string>(ownerColumns).fill('Owned By'),
  ];
  const lines = rows.map(({ story, details }) => [
    String(story.current_state),
    String(story.story_type),
    typeof story.estimate === 'number' ? story.estimate : null,
    String(story.name),
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