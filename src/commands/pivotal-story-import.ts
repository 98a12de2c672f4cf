// Importing stories from a Pivotal Tracker CSV export into a project: each parsed row becomes ONE
// story_create event (an epic row, ONE epic_create event with its label), decided by the real deciders
// through the one ResourceWriter.
//
// - People: Requested By and every Owned By are matched to the project's members by name (case and
//   spaces ignored); an unknown or ambiguous name is reported with the row, not fatal: the requester
//   falls back to the importer, the owner is left out.
// - The importer (performer of every event, requester of last resort) is the project's first owner.
// - Order: each story is placed right after the previous imported story of its band (Icebox / the
//   scheduled stories), so the file's order is the priority order.
// - Comments are created in the story's event with their dates; a comment's author is matched to a
//   member by name like the people above. A comment by an unknown (or no) author is written by the
//   importer and keeps Tracker's signature "(Name - date)" in its text, so no authorship is lost; the
//   unknown name is reported. Blockers are created with their resolved state.
// - A value the story rules refuse on an otherwise good row (a deadline on a bug, an accepted_at in the
//   future) is dropped and reported (`values_dropped`), and the story decided again without it (at most
//   once per value); a refusal that names no value of the row (a started feature without an estimate)
//   or that names its title, type or state refuses the row.
// - Epic rows: the name, description and comments; the epic's label is the row's first label (a new epic
//   takes the label named like it when the row has none); other columns an epic has no use for (owners,
//   tasks, estimate, ...) are reported dropped. Epics keep the file's order (each goes to the bottom).
// - Command ids are `<prefix>:<record>`: importing the same file again (same prefix) writes nothing twice.
import { DomainError, unfound } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import type { StoryPriority, StoryState, StoryType } from '../domain/project-documents.js';
import { requestedTimeZoneName } from '../domain/project/time-zone.js';
import type { NewComment } from '../domain/comment/comment-writes.js';
import { decideCreateEpic, type CreateEpicCommand } from '../domain/epic/create-epic.js';
import { decideCreateStory, type CreateStoryInput } from '../domain/story/create-story.js';
import { bandOf, type Band } from '../domain/story/story-order.js';
import type { CommandHandler } from './command-handler.js';
import type { ReadView } from './read-view.js';
import type { ResourceWriter } from './resource-writer.js';

export interface PivotalTask {
  description: string;
  complete: boolean;
}

/** A comment cell: "text (Author Name - Feb 11, 2016)". */
export interface PivotalComment {
  /** The cell as written, signature included. */
  cell: string;
  /** The text without the signature (the whole cell when it has none). */
  text: string;
  author: string | null;
  /** ms, or null when the cell names no date. */
  created_at: number | null;
}

export interface PivotalBlocker {
  description: string;
  resolved: boolean;
}

/** One story (or epic) of the export, typed (src/infra/pivotal-csv/ reads it from the file). */
export interface PivotalRow {
  /** `epic` for the rows whose Type is epic. */
  kind: 'story' | 'epic';
  /** Record number in the file: the header is record 1, the first story record 2. */
  record: number;
  /** The story's id in Tracker (Id column), reported beside the new id. */
  pivotalId: string | null;
  name: string;
  storyType?: StoryType;
  currentState?: StoryState;
  estimate?: number;
  priority?: StoryPriority;
  labels: string[];
  description: string | null;
  requestedBy: string | null;
  owners: string[];
  tasks: PivotalTask[];
  comments: PivotalComment[];
  blockers: PivotalBlocker[];
  createdAt?: number;
  acceptedAt?: number;
  deadline?: number;
}

export interface PivotalRowOutcome {
  record: number;
  pivotal_id: string | null;
  /** The new story's id; absent when the row was refused or is an epic. */
  story_id?: number;
  /** The new epic's id, for an epic row. */
  epic_id?: number;
  /** Why the row was refused. */
  problems?: string[];
  /** Values the rules refused (or an epic has no use for), left out of a row imported without them. */
  values_dropped?: string[];
  /** Names of Requested By / Owned By / comment authors that match no single project member. */
  unknown_people: string[];
  /** Created with the story (0 when the story was refused). */
  comments_created: number;
  blockers_created: number;
}

export interface PivotalImportDeps {
  commands: CommandHandler;
  writer: ResourceWriter;
  people: ReadView;
  clock: () => number;
}

const normalizedName = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

export class PivotalStoryImport {
  private readonly lastInBand = new Map<Band, number>();

  private constructor(
    private readonly deps: PivotalImportDeps,
    private readonly projectId: number,
    private readonly commandPrefix: string,
    private readonly importerId: number,
    /** Normalized name -> member id; null when two members share the name. */
    private readonly members: ReadonlyMap<string, number | null>,
    /** The project's time zone: CSV datetimes without a zone are wall times there. */
    readonly timeZone: string,
  ) {}

  /** Reads the project's members and owner; `unfound_resource` when the project does not exist. */
  static async open(deps: PivotalImportDeps, projectId: number, commandPrefix: string): Promise<PivotalStoryImport> {
    const state = await deps.commands.load(streams.project(projectId));
    if (state.version === 0) throw unfound();
    const project = state.project();
    const memberships = [...state.memberships].sort((a, b) => a.id - b.id);
    const importer = memberships.find((membership) => membership.role === 'owner');
    if (!importer) throw new DomainError('unfound_resource', { general_problem: `project ${projectId} has no owner to import as` });
    const people = await deps.people.find({ id: { $in: memberships.map((membership) => membership.person_id) } });
    const members = new Map<string, number | null>();
    for (const person of people) {
      const key = normalizedName(String(person['name']));
      members.set(key, members.has(key) ? null : (person['id'] as number));
    }
    const timeZone = requestedTimeZoneName((project as unknown as Record<string, unknown>)['time_zone']) ?? 'Etc/UTC';
    return new PivotalStoryImport(deps, projectId, commandPrefix, importer.person_id, members, timeZone);
  }

  /** One row: a story, or an epic for an epic row. */
  async importRow(row: PivotalRow): Promise<PivotalRowOutcome> {
    return row.kind === 'epic' ? this.importEpic(row) : this.importStory(row);
  }

  private async importStory(row: PivotalRow): Promise<PivotalRowOutcome> {
    const { member, unknownPeople } = this.memberLookup();
    const requester = row.requestedBy === null ? undefined : member(row.requestedBy);
    const owners = [...new Set(row.owners.map(member).filter((id): id is number => id !== undefined))];
    const state = row.currentState ?? 'unscheduled';
    const band = bandOf(state);
    const previous = this.lastInBand.get(band);
    const input: CreateStoryInput = {
      name: row.name,
      current_state: state,
      requested_by_id: requester ?? this.importerId,
      owner_ids: owners,
      labels: row.labels,
      description: row.description,
      ...(row.storyType ? { story_type: row.storyType } : {}),
      ...(row.estimate !== undefined ? { estimate: row.estimate } : {}),
      ...(row.priority ? { story_priority: row.priority } : {}),
      ...(row.tasks.length > 0 ? { tasks: row.tasks } : {}),
      ...(row.comments.length > 0 ? { comments: row.comments.map((comment) => this.newComment(comment, member)) } : {}),
      ...(row.blockers.length > 0 ? { blockers: row.blockers } : {}),
      ...(row.createdAt !== undefined ? { created_at: row.createdAt } : {}),
      ...(row.acceptedAt !== undefined ? { accepted_at: row.acceptedAt } : {}),
      ...(row.deadline !== undefined ? { deadline: row.deadline } : {}),
      ...(previous !== undefined ? { after_id: previous } : {}),
    };
    const outcome: PivotalRowOutcome = { record: row.record, pivotal_id: row.pivotalId, unknown_people: unknownPeople, comments_created: 0, blockers_created: 0 };
    const dropped: string[] = [];
    const meta = { commandId: `${this.commandPrefix}:${row.record}`, actorId: this.importerId, now: this.deps.clock() };
    // Each refusal naming values of the row drops them and decides again: bounded by the row's keys.
    for (let attempt = 0; attempt <= DROPPABLE_STORY_VALUES.length; attempt++) {
      try {
        const { doc: story } = await this.deps.writer.onProject(this.projectId, decideCreateStory, input, meta);
        this.lastInBand.set(band, story.id);
        return {
          ...outcome,
          story_id: story.id,
          comments_created: input.comments?.length ?? 0,
          blockers_created: input.blockers?.length ?? 0,
          ...(dropped.length > 0 ? { values_dropped: dropped } : {}),
        };
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const droppable = (error.details.validation_errors ?? []).filter(({ field }) => isDroppable(input, field));
        if (droppable.length === 0) return { ...outcome, problems: problemsOf(error) };
        for (const { field, problem } of droppable) {
          delete (input as unknown as Record<string, unknown>)[field];
          dropped.push(`${field}: ${problem}`);
        }
      }
    }
    return { ...outcome, problems: dropped };
  }

  private async importEpic(row: PivotalRow): Promise<PivotalRowOutcome> {
    const { member, unknownPeople } = this.memberLookup();
    const [label, ...otherLabels] = row.labels;
    const dropped = [
      ...otherLabels.map((name) => `labels: an epic has one label; "${name}" was left out`),
      ...unusedByEpics(row).map((column) => `${column}: epics have none`),
    ];
    const command: CreateEpicCommand = {
      name: row.name,
      ...(row.description !== null ? { description: row.description } : {}),
      ...(label !== undefined ? { label: { name: label } } : {}),
      ...(row.comments.length > 0 ? { comments: row.comments.map((comment) => this.newComment(comment, member)) } : {}),
    };
    const outcome: PivotalRowOutcome = { record: row.record, pivotal_id: row.pivotalId, unknown_people: unknownPeople, comments_created: 0, blockers_created: 0 };
    try {
      const meta = { commandId: `${this.commandPrefix}:${row.record}`, actorId: this.importerId, now: this.deps.clock() };
      const { doc: epic } = await this.deps.writer.onProject(this.projectId, decideCreateEpic, command, meta);
      return { ...outcome, epic_id: epic.id, comments_created: row.comments.length, ...(dropped.length > 0 ? { values_dropped: dropped } : {}) };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { ...outcome, problems: problemsOf(error) };
    }
  }

  /** Matches names to members, collecting the names that match none (or several). */
  private memberLookup(): { member: (name: string) => number | undefined; unknownPeople: string[] } {
    const unknownPeople: string[] = [];
    const member = (name: string): number | undefined => {
      const id = this.members.get(normalizedName(name));
      if (id === undefined || id === null) unknownPeople.push(name);
      return id ?? undefined;
    };
    return { member, unknownPeople };
  }

  /**
   * A comment written by its author when the signature names a member, its text without the signature;
   * otherwise by the importer, the cell kept whole so the text still says who wrote it. The date is kept.
   */
  private newComment(comment: PivotalComment, member: (name: string) => number | undefined): NewComment {
    const authorId = comment.author === null ? undefined : member(comment.author);
    const createdAt = comment.created_at === null ? {} : { created_at: comment.created_at };
    if (authorId === undefined || comment.text.trim() === '') return { text: comment.cell, person_id: this.importerId, ...createdAt };
    return { text: comment.text, person_id: authorId, ...createdAt };
  }
}

/** Story values a refusal may drop (never the title, type or state: without them it would be another story). */
const DROPPABLE_STORY_VALUES = [
  'estimate', 'story_priority', 'labels', 'description', 'owner_ids', 'tasks', 'comments', 'blockers', 'created_at', 'accepted_at', 'deadline',
] as const;

function isDroppable(input: CreateStoryInput, field: string): boolean {
  return (DROPPABLE_STORY_VALUES as readonly string[]).includes(field) && field in input;
}

/** The columns of an epic row that an epic has no use for, when they hold anything. */
function unusedByEpics(row: PivotalRow): string[] {
  const filled: Array<[string, boolean]> = [
    ['Estimate', row.estimate !== undefined],
    ['Priority', row.priority !== undefined],
    ['Current State', row.currentState !== undefined],
    ['Requested By', row.requestedBy !== null],
    ['Owned By', row.owners.length > 0],
    ['Task', row.tasks.length > 0],
    ['Blocker', row.blockers.length > 0],
    ['Accepted at', row.acceptedAt !== undefined],
    ['Deadline', row.deadline !== undefined],
  ];
  return filled.filter(([, present]) => present).map(([column]) => column);
}

function problemsOf(error: DomainError): string[] {
  const validation = error.details.validation_errors ?? [];
  if (validation.length > 0) return validation.map(({ field, problem }) => `${field}: ${problem}`);
  return [error.details.general_problem ?? error.details.requirement ?? error.code];
}
