// A Pivotal Tracker CSV export, one record at a time, as typed story rows (and epic rows: Type `epic`). Columns are matched by NAME
// (case and surrounding spaces ignored), so exports of different years (with or without Priority, Title
// or the older Story, extra integration columns) read the same. Repeated columns (Owned By, Comment,
// Task / Task Status, Blocker / Blocker Status) are collected in file order. Columns Storyline does not
// carry over are reported by name, never silently skipped. Each cell is read back as the one CSV writer
// neutralised it (src/domain/csv.ts): once trimmed, the `'` it put before a formula's first character is
// dropped, so a title `=SUM(A1)` (or one starting with a tab) exported and imported again is the same.
// Pure: no I/O; csv-parse splits the records.
import { restoredText } from '../../domain/csv.js';
import type { StoryPriority, StoryState, StoryType } from '../../domain/project-documents.js';
import type { PivotalComment, PivotalRow } from '../../commands/pivotal-story-import.js';
import { parsePivotalDate } from './pivotal-dates.js';

/** Where each carried-over column is in the header. */
export interface PivotalColumns {
  id: number | null;
  title: number;
  type: number | null;
  estimate: number | null;
  priority: number | null;
  currentState: number | null;
  labels: number | null;
  description: number | null;
  requestedBy: number | null;
  createdAt: number | null;
  acceptedAt: number | null;
  deadline: number | null;
  ownedBy: number[];
  comments: number[];
  tasks: { task: number; status: number | null }[];
  blockers: { blocker: number; status: number | null }[];
  /** Header names of the columns that are not carried over (Iteration, URL, Pull Request, ...). */
  ignored: string[];
}

export class PivotalHeaderError extends Error {}

const SINGLE: Record<string, Exclude<keyof PivotalColumns, 'ownedBy' | 'comments' | 'tasks' | 'blockers' | 'ignored' | 'title'>> = {
  id: 'id',
  type: 'type',
  'story type': 'type',
  estimate: 'estimate',
  priority: 'priority',
  'current state': 'currentState',
  labels: 'labels',
  description: 'description',
  'requested by': 'requestedBy',
  'created at': 'createdAt',
  'accepted at': 'acceptedAt',
  deadline: 'deadline',
};

export function pivotalColumns(header: readonly string[]): PivotalColumns {
  const columns: PivotalColumns = {
    id: null, title: -1, type: null, estimate: null, priority: null, currentState: null, labels: null,
    description: null, requestedBy: null, createdAt: null, acceptedAt: null, deadline: null,
    ownedBy: [], comments: [], tasks: [], blockers: [], ignored: [],
  };
  header.forEach((raw, index) => {
    const name = raw.trim().toLowerCase();
    const single = SINGLE[name];
    if (name === 'title' || name === 'story') {
      if (columns.title !== -1) throw new PivotalHeaderError(`the header names the story title twice ("${raw}")`);
      columns.title = index;
    } else if (single) {
      if (columns[single] !== null) throw new PivotalHeaderError(`the header has two "${raw.trim()}" columns`);
      columns[single] = index;
    } else if (name === 'owned by') columns.ownedBy.push(index);
    else if (name === 'comment') columns.comments.push(index);
    else if (name === 'task') columns.tasks.push({ task: index, status: null });
    else if (name === 'task status') pairStatus(columns.tasks, index, raw);
    else if (name === 'blocker') columns.blockers.push({ blocker: index, status: null });
    else if (name === 'blocker status') pairStatus(columns.blockers, index, raw);
    else columns.ignored.push(raw.trim());
  });
  if (columns.title === -1) throw new PivotalHeaderError('the header has no "Title" (or "Story") column: is this a Tracker CSV export?');
  return columns;
}

/** A status column belongs to the last value column before it that has no status yet. */
function pairStatus(pairs: { status: number | null }[], index: number, raw: string): void {
  const open = pairs.at(-1);
  if (!open || open.status !== null) throw new PivotalHeaderError(`"${raw.trim()}" (column ${index + 1}) follows no column it could describe`);
  open.status = index;
}

/** Types of a row: a story's, or `epic` for the rows that are epics in a Tracker export. */
const ROW_TYPES: readonly (StoryType | 'epic')[] = ['feature', 'bug', 'chore', 'release', 'epic'];
const STORY_STATES: readonly StoryState[] = ['unscheduled', 'unstarted', 'planned', 'started', 'finished', 'delivered', 'accepted', 'rejected'];
const PRIORITY = /^(p[0-3]|none)\b/i;
const COMMENT_SIGNATURE = /^([\s\S]*?)\s*\(([^()]*?) - ([^()]*)\)\s*$/;

export type PivotalRowResult = { ok: true; row: PivotalRow } | { ok: false; record: number; problems: string[] };

/** One record (after the header) as a story row, or every problem found in it. */
export function pivotalStoryRow(columns: PivotalColumns, cells: readonly string[], record: number, timeZone: string): PivotalRowResult {
  const problems: string[] = [];
  const cell = (index: number | null): string => (index === null ? '' : restoredText((cells[index] ?? '').trim()));
  const text = (index: number | null): string | null => cell(index) || null;
  const date = (index: number | null, column: string): number | undefined => {
    const value = cell(index);
    if (value === '') return undefined;
    const parsed = parsePivotalDate(value, timeZone);
    if (parsed === null) problems.push(`${column} "${value}" is not a date`);
    return parsed ?? undefined;
  };
  const oneOf = <T extends string>(index: number | null, allowed: readonly T[], column: string): T | undefined => {
    const value = cell(index).toLowerCase();
    if (value === '') return undefined;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    problems.push(`${column} "${cell(index)}" is not one of ${allowed.join(', ')}`);
    return undefined;
  };

  const name = cell(columns.title);
  if (name === '') problems.push('Title is empty');
  const estimateText = cell(columns.estimate);
  const estimate = estimateText === '' ? undefined : Number(estimateText);
  if (estimate !== undefined && !Number.isFinite(estimate)) problems.push(`Estimate "${estimateText}" is not a number`);
  const priorityText = cell(columns.priority);
  const priority = PRIORITY.exec(priorityText)?.[1]?.toLowerCase() as StoryPriority | undefined;
  if (priorityText !== '' && !priority) problems.push(`Priority "${priorityText}" is not p0, p1, p2, p3 or none`);

  const type = oneOf(columns.type, ROW_TYPES, 'Type');
  const story: PivotalRow = {
    kind: type === 'epic' ? 'epic' : 'story',
    record,
    pivotalId: text(columns.id),
    name,
    ...(type !== undefined && type !== 'epic' ? { storyType: type } : {}),
    currentState: oneOf(columns.currentState, STORY_STATES, 'Current State'),
    ...(estimate !== undefined && Number.isFinite(estimate) ? { estimate } : {}),
    ...(priority ? { priority } : {}),
    labels: cell(columns.labels).split(',').map((label) => label.trim()).filter((label) => label !== ''),
    description: text(columns.description),
    requestedBy: text(columns.requestedBy),
    owners: columns.ownedBy.map((index) => cell(index)).filter((owner) => owner !== ''),
    tasks: columns.tasks
      .filter(({ task }) => cell(task) !== '')
      .map(({ task, status }) => ({ description: cell(task), complete: cell(status).toLowerCase() === 'completed' })),
    comments: columns.comments.map((index) => cell(index)).filter((comment) => comment !== '').map((comment) => pivotalComment(comment, timeZone)),
    blockers: columns.blockers
      .filter(({ blocker }) => cell(blocker) !== '')
      .map(({ blocker, status }) => ({ description: cell(blocker), resolved: cell(status).toLowerCase() === 'resolved' })),
  };
  const createdAt = date(columns.createdAt, 'Created at');
  const acceptedAt = date(columns.acceptedAt, 'Accepted at');
  const deadline = date(columns.deadline, 'Deadline');
  if (createdAt !== undefined) story.createdAt = createdAt;
  if (acceptedAt !== undefined) story.acceptedAt = acceptedAt;
  if (deadline !== undefined) story.deadline = deadline;
  for (const { status } of columns.tasks) {
    const value = cell(status).toLowerCase();
    if (value !== '' && value !== 'completed' && value !== 'not completed') problems.push(`Task Status "${cell(status)}" is not completed or not completed`);
  }
  return problems.length > 0 ? { ok: false, record, problems } : { ok: true, row: story };
}

/** "text (Author Name - Feb 11, 2016)": the signature Tracker appended to each comment, when present. */
export function pivotalComment(cell: string, timeZone: string): PivotalComment {
  const signed = COMMENT_SIGNATURE.exec(cell);
  if (!signed) return { cell, text: cell, author: null, created_at: null };
  const createdAt = parsePivotalDate(signed[3]!, timeZone);
  if (createdAt === null) return { cell, text: cell, author: null, created_at: null };
  return { cell, text: signed[1]!, author: signed[2]!.trim(), created_at: createdAt };
}
