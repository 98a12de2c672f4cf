// A project as a Pivotal Tracker CSV export, the format `import-pivotal-csv` reads (pivotal-story-rows.ts),
// so an export imported into an empty project gives the same stories, epics, labels, owners, tasks,
// comments, blockers and order. The columns of a real export, in its order: Id, Title, Labels,
// Iteration, Iteration Start, Iteration End, Type, Estimate, Current State, Priority (later exports),
// Created at, Accepted at, Deadline, Requested By, Description, URL, then as many Owned By, Blocker /
// Blocker Status, Comment and Task / Task Status columns as the fullest story needs.
//
// - Rows: the stories in priority order (the scheduled ones, then the Icebox), then the epics in epic
//   order (Type `epic`, their label in Labels).
// - People by name; a comment is its text signed as Tracker signed it, "text (Author - date)".
// - Datetimes are ISO 8601 in UTC to the second (Tracker wrote "Feb 11, 2016"): the importer reads both,
//   and this one gives back the same instant. Iterations are those of the done, current and backlog
//   iterations today (the importer recomputes them).
// - Everything of the project is read at once: an operator's command, never a request's path.
// - The rows are written by the one CSV writer (src/domain/csv.ts): numbers as numbers, formula-like
//   text with a leading `'` that the importer drops again.
import type { CsvCell } from '../../domain/csv.js';
import type { Doc, ReadOnlyCollection } from '../../ports/read-store.js';
import type { BlockerReadDoc, CommentReadDoc, EpicReadDoc, PersonReadDoc, TaskReadDoc } from '../../projections/documents.js';
import { MAX_ITERATION_LIMIT, listIterations } from '../../queries/iterations/iterations-query.js';
import type { IterationReads } from '../../queries/iterations/iteration-timeline.js';

export interface PivotalExportReads extends IterationReads {
  tasks: ReadOnlyCollection<TaskReadDoc>;
  comments: ReadOnlyCollection<CommentReadDoc>;
  blockers: ReadOnlyCollection<BlockerReadDoc>;
  epics: ReadOnlyCollection<EpicReadDoc>;
  people: ReadOnlyCollection<PersonReadDoc>;
}

export interface PivotalExportRequest {
  projectId: number;
  now: number;
  storyUrl(id: number): string;
  epicUrl(id: number): string;
}

const LEADING_COLUMNS = [
  'Id', 'Title', 'Labels', 'Iteration', 'Iteration Start', 'Iteration End', 'Type', 'Estimate', 'Current State', 'Priority',
  'Created at', 'Accepted at', 'Deadline', 'Requested By', 'Description', 'URL',
] as const;

const PRIORITY_NAMES: Readonly<Record<string, string>> = {
  p0: 'p0 - Critical',
  p1: 'p1 - High',
  p2: 'p2 - Medium',
  p3: 'p3 - Low',
  none: 'none',
};

/** What one row holds beyond its leading cells. */
interface ExportRow {
  leading: CsvCell[];
  owners: string[];
  blockers: [string, string][];
  comments: string[];
  tasks: [string, string][];
}

/** The header and the rows of the project's export. */
export async function pivotalCsvExport(reads: PivotalExportReads, request: PivotalExportRequest): Promise<CsvCell[][]> {
  const { projectId } = request;
  const inProject = { project_id: projectId };
  const [stories, epics, labels, tasks, comments, blockers, iterationOf] = await Promise.all([
    reads.stories.find(inProject, { sort: { rank: 1, id: 1 } }),
    reads.epics.find(inProject, { sort: { rank: 1, id: 1 } }),
    reads.labels.find(inProject),
    reads.tasks.find(inProject, { sort: { position: 1, id: 1 } }),
    reads.comments.find(inProject, { sort: { created_at: 1, id: 1 } }),
    reads.blockers.find(inProject, { sort: { created_at: 1, id: 1 } }),
    iterationsOfStories(reads, projectId, request.now),
  ]);
  const personIds = new Set<number>();
  for (const story of stories) {
    for (const id of [story.requested_by_id, ...idList(story.owner_ids)]) if (typeof id === 'number') personIds.add(id);
  }
  for (const comment of comments) if (typeof comment.person_id === 'number') personIds.add(comment.person_id);
  const people = await reads.people.find({ id: { $in: [...personIds] } });
  const nameOf = byId(people, (person) => person.name);
  const labelName = byId(labels, (label) => label.name);
  const grouped = <D extends Doc>(docs: readonly D[], key: keyof D) => {
    const groups = new Map<number, D[]>();
    for (const doc of docs) {
      const owner = doc[key];
      if (typeof owner !== 'number') continue;
      const group = groups.get(owner);
      if (group) group.push(doc);
      else groups.set(owner, [doc]);
    }
    return groups;
  };
  const tasksOf = grouped(tasks, 'story_id');
  const commentsOfStory = grouped(comments, 'story_id');
  const commentsOfEpic = grouped(comments, 'epic_id');
  const blockersOf = grouped(blockers, 'story_id');
  const signed = (comment: CommentReadDoc) => signedComment(comment, nameOf.get(comment.person_id) ?? null);

  const rows: ExportRow[] = [
    ...stories.map((story): ExportRow => {
      const iteration = iterationOf.get(story.id);
      return {
        leading: [
          story.id,
          story.name,
          idList(story.label_ids).map((id) => labelName.get(id)).filter((name) => name !== undefined).join(', '),
          iteration?.number ?? null,
          iteration ? isoSecond(iteration.start) : null,
          iteration ? isoSecond(iteration.finish) : null,
          story.story_type,
          typeof story.estimate === 'number' ? story.estimate : null,
          story.current_state,
          typeof story.story_priority === 'string' ? (PRIORITY_NAMES[story.story_priority] ?? story.story_priority) : null,
          isoSecond(story.created_at),
          isoSecond(story.accepted_at),
          isoSecond(story.deadline),
          nameOf.get(story.requested_by_id) ?? null,
          typeof story.description === 'string' ? story.description : null,
          request.storyUrl(story.id),
        ],
        owners: idList(story.owner_ids).map((id) => nameOf.get(id) ?? ''),
        blockers: (blockersOf.get(story.id) ?? []).map((blocker) => [
          blocker.description,
          blocker.resolved === true ? 'resolved' : 'unresolved',
        ]),
        comments: (commentsOfStory.get(story.id) ?? []).map(signed),
        tasks: (tasksOf.get(story.id) ?? []).map((task) => [
          task.description,
          task.complete === true ? 'completed' : 'not completed',
        ]),
      };
    }),
    ...epics.map((epic): ExportRow => ({
      leading: [
        epic.id, epic.name, labelName.get(epic.label_id) ?? null, null, null, null, 'epic', null, null, null,
        isoSecond(epic.created_at), null, null, null,
        typeof epic.description === 'string' ? epic.description : null,
        request.epicUrl(epic.id),
      ],
      owners: [],
      blockers: [],
      comments: (commentsOfEpic.get(epic.id) ?? []).map(signed),
      tasks: [],
    })),
  ];
  const widest = (pick: (row: ExportRow) => readonly unknown[]) => Math.max(0, ...rows.map((row) => pick(row).length));
  const width = {
    owners: widest((row) => row.owners),
    blockers: widest((row) => row.blockers),
    comments: widest((row) => row.comments),
    tasks: widest((row) => row.tasks),
  };
  const header: CsvCell[] = [
    ...LEADING_COLUMNS,
    ...repeat(width.owners, ['Owned By']),
    ...repeat(width.blockers, ['Blocker', 'Blocker Status']),
    ...repeat(width.comments, ['Comment']),
    ...repeat(width.tasks, ['Task', 'Task Status']),
  ];
  const padded = <T>(values: readonly T[], count: number, empty: T): T[] => [...values, ...Array<T>(count - values.length).fill(empty)];
  return [
    header,
    ...rows.map((row) => [
      ...row.leading,
      ...padded(row.owners, width.owners, ''),
      ...padded(row.blockers, width.blockers, ['', ''] as [string, string]).flat(),
      ...padded(row.comments, width.comments, ''),
      ...padded(row.tasks, width.tasks, ['', ''] as [string, string]).flat(),
    ]),
  ];
}

/** "text (Author - 2016-02-11T15:04:05Z)", as Tracker signed comments (with its own date style). */
function signedComment(comment: CommentReadDoc, author: string | null): string {
  const text = String(comment.text ?? '');
  return author === null ? text : `${text} (${author} - ${isoSecond(comment.created_at)})`;
}

/** The number, start and finish of the done, current or backlog iteration each story is in. */
async function iterationsOfStories(reads: IterationReads, projectId: number, now: number): Promise<Map<number, { number: number; start: number; finish: number }>> {
  const found = new Map<number, { number: number; start: number; finish: number }>();
  for (let offset = 0, total = 1; offset < total; offset += MAX_ITERATION_LIMIT) {
    const page = await listIterations(reads, { projectId, offset, limit: MAX_ITERATION_LIMIT, now });
    total = page.total;
    for (const iteration of page.iterations) {
      for (const id of iteration.story_ids) found.set(id, { number: iteration.number, start: iteration.start, finish: iteration.finish });
    }
  }
  return found;
}

function repeat(count: number, names: readonly string[]): string[] {
  return Array.from({ length: count }, () => names).flat();
}

function isoSecond(value: unknown): string | null {
  return typeof value === 'number' ? `${new Date(value).toISOString().slice(0, 19)}Z` : null;
}

function idList(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((id): id is number => typeof id === 'number') : [];
}

function byId<D extends Doc, T>(docs: readonly D[], value: (doc: D) => T): Map<number, T> {
  return new Map(docs.map((doc) => [doc.id, value(doc)]));
}
