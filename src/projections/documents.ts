// The documents of every read collection the projectors write, one type per collection, named for it
// (`stories` holds StoryReadDoc): what readers get from `ReadModelReader`, so a misspelt field does
// not compile. A field is optional where a projector may leave it out (a null value is never stored:
// the resources projection unsets it). These are read documents, not the write model's states.
//
// Types rather than interfaces: a type literal is assignable to the store's `Doc` (Record<string,
// unknown>) without an index signature of its own, which would let any field name through.
import type { ReadOnlyCollection } from '../ports/read-store.js';
import type { ExtAttachment } from '../domain/comment/comment-attachments.js';
import type { StoryHistoryValues } from '../domain/iteration/daily-history.js';
import type { TimeZone } from '../domain/project/time-zone.js';
import type { StoryCounts, StoryState, StoryType } from '../domain/project-documents.js';

/** When a resource was created and last changed (ms). */
type Stamped = { created_at: number; updated_at: number };

// --- resources projection (projections/resources): a resource's stored values, plus `project_id` on
// project-scoped kinds and `rank` on ordered ones

export type ProjectReadDoc = {
  id: number;
  account_id: number;
  name: string;
  /** The number of the project stream's last event. */
  version: number;
  description?: string;
  profile_content?: string;
  iteration_length: number;
  week_start_day: string;
  point_scale: string;
  point_scale_is_custom: boolean;
  bugs_and_chores_are_estimatable: boolean;
  automatic_planning: boolean;
  enable_tasks: boolean;
  show_story_priority: boolean;
  show_priority_icon: boolean;
  show_priority_icon_in_all_panels: boolean;
  velocity_averaged_over: number;
  number_of_done_iterations_to_show: number;
  initial_velocity: number;
  enable_incoming_emails: boolean;
  public: boolean;
  atom_enabled: boolean;
  join_as: string;
  project_type: string;
  enable_following: boolean;
  has_ext_domain: boolean;
  time_zone: TimeZone;
  /** `YYYY-MM-DD`, when the project's start is set. */
  start_date?: string;
} & Stamped;

export type ProjectMembershipReadDoc = {
  id: number;
  project_id: number;
  person_id: number;
  role: string;
  project_color: string;
  favorite: boolean;
  wants_comment_notification_emails: boolean;
  will_receive_mention_notifications_or_emails: boolean;
} & Stamped;

export type StoryReadDoc = {
  id: number;
  project_id: number;
  name: string;
  story_type: StoryType;
  current_state: StoryState;
  story_priority: string;
  description?: string;
  estimate?: number;
  accepted_at?: number;
  deadline?: number;
  requested_by_id: number;
  owner_ids: number[];
  follower_ids: number[];
  label_ids: number[];
  blocked_story_ids: number[];
  external_id?: string;
  integration_id?: number;
  /** The story's place in its project's priority order (a fractional key). */
  rank: string;
} & Stamped;

export type LabelReadDoc = {
  id: number;
  project_id: number;
  name: string;
  counts: StoryCounts;
} & Stamped;

export type TaskReadDoc = {
  id: number;
  project_id: number;
  story_id: number;
  description: string;
  complete: boolean;
  position: number;
} & Stamped;

/** A comment on a story (`story_id`) or on an epic (`epic_id`). */
export type CommentReadDoc = {
  id: number;
  project_id: number;
  story_id?: number;
  epic_id?: number;
  person_id: number;
  text: string;
  file_attachment_ids: number[];
  ext_attachment_ids: number[];
  attachment_ids: number[];
  ext_attachments: ExtAttachment[];
  mentioned_person_ids?: number[];
} & Stamped;

export type FileAttachmentReadDoc = {
  id: number;
  project_id: number;
  /** The comment holding the file, once one does. */
  comment_id?: number;
  uploader_id: number;
  filename: string;
  content_type: string;
  size: number;
  content_hash: string;
  thumbnailable: boolean;
  uploaded: boolean;
  width?: number;
  height?: number;
} & Stamped;

export type BlockerReadDoc = {
  id: number;
  project_id: number;
  story_id: number;
  person_id: number;
  description: string;
  resolved: boolean;
} & Stamped;

export type EpicReadDoc = {
  id: number;
  project_id: number;
  name: string;
  description?: string;
  label_id: number;
  follower_ids: number[];
  rank: string;
} & Stamped;

export type IterationOverrideReadDoc = {
  id: number;
  project_id: number;
  number: number;
  length?: number;
  team_strength?: number;
};

export type PersonReadDoc = {
  id: number;
  name: string;
  initials: string;
  username: string;
  email: string;
  receives_in_app_notifications: boolean;
  has_ext_identity: boolean;
  twofactor_auth_enabled: boolean;
  /** Set by the person; the API shows UTC while it is not. */
  time_zone?: TimeZone;
  /** People added to the person's known people (never rendered as such). */
  known_person_ids?: number[];
} & Stamped;

export type AccountReadDoc = {
  id: number;
  name: string;
  plan: string;
  status: string;
} & Stamped;

export type AccountMembershipReadDoc = {
  id: number;
  account_id: number;
  person_id: number;
  owner: boolean;
  admin: boolean;
  project_creator: boolean;
  timekeeper: boolean;
  time_enterer: boolean;
} & Stamped;

export type SavedSearchReadDoc = {
  id: number;
  project_id: number;
  owner_id: number;
  name: string;
  query: string;
} & Stamped;

export type ReviewTypeReadDoc = {
  id: number;
  project_id: number;
  name: string;
  hidden: boolean;
} & Stamped;

export type ReviewReadDoc = {
  id: number;
  project_id: number;
  story_id: number;
  review_type_id: number;
  reviewer_id: number;
  status: string;
} & Stamped;

export type WorkspaceReadDoc = {
  id: number;
  person_id: number;
  name: string;
  project_ids: number[];
} & Stamped;

export type WebhookReadDoc = {
  id: number;
  project_id: number;
  webhook_url: string;
  webhook_version: string;
  /** Where the credentials store keeps its secret. */
  secret_ref: string;
} & Stamped;

// --- activity projections (projections/activity): `id` is the event's global position, so sorting on
// `id` descending is newest first

/** One project event a person performed (activity_by_performer). */
export type PerformerActivityReadDoc = {
  id: number;
  person_id: number;
  project_id: number;
  /** The project version the event produced. */
  version: number;
  occurred_at: number;
};

/** One project event of stories or epics, keyed `story-12`, `epic-3` (activity_by_resource). */
export type SubjectActivityReadDoc = {
  id: number;
  subjects: string[];
  project_id: number;
  /** The project version the event produced. */
  version: number;
  occurred_at: number;
};

// --- iterations projection (projections/iterations)

/** What iterations need of one story, keyed for their reads (iteration-stories-projection.ts). */
export type IterationStoryReadDoc = {
  id: number;
  project_id: number;
  current_state: StoryState;
  story_type: StoryType;
  estimate?: number;
  accepted_at?: number;
  created_at: number;
  rank: string;
  plan_key: string;
  /** Accepted stories only: see acceptanceKey. */
  acceptance_key?: string;
};

// --- analytics projection (projections/analytics): `id` = event position × 1000 + the change's index

/** A story entering a state (story_transitions). */
export type StoryTransitionReadDoc = {
  id: number;
  story_id: number;
  project_id: number;
  state: string;
  project_version: number;
  occurred_at: number;
  performed_by_id?: number;
  /** The story's type when it was created (creations only: bugs_created counts them). */
  story_type?: string;
  created?: true;
  /** Creations only: the story's created_at and its week key (analytics-keys.ts). */
  created_at?: number;
  created_week_key?: string;
  week_key: string;
};

/** A change of a story's state, estimate or acceptance time (story_history). */
export type StoryHistoryReadDoc = {
  id: number;
  story_id: number;
  project_id: number;
  /** ms: when the change happened (the event's occurred_at). */
  at: number;
  values: StoryHistoryValues;
  /** The story came into the project (created, or moved in): `values` is its whole starting state. */
  created?: true;
  /** The story left the project (deleted, or moved out). */
  deleted?: true;
  /** Documents that set an acceptance time: it, and its week key (analytics-keys.ts). */
  accepted_at?: number;
  accepted_week_key?: string;
};

// --- search projection (projections/search)

/** The distinct words of a story's name and description (story_words). */
export type StoryWordsReadDoc = {
  id: number;
  project_id: number;
  name_words: string[];
  description_words: string[];
};

/** Every read collection by its logical name, with its document type. */
export interface ReadModels {
  projects: ProjectReadDoc;
  project_memberships: ProjectMembershipReadDoc;
  stories: StoryReadDoc;
  labels: LabelReadDoc;
  tasks: TaskReadDoc;
  comments: CommentReadDoc;
  file_attachments: FileAttachmentReadDoc;
  blockers: BlockerReadDoc;
  epics: EpicReadDoc;
  iteration_overrides: IterationOverrideReadDoc;
  people: PersonReadDoc;
  accounts: AccountReadDoc;
  account_memberships: AccountMembershipReadDoc;
  saved_searches: SavedSearchReadDoc;
  review_types: ReviewTypeReadDoc;
  reviews: ReviewReadDoc;
  workspaces: WorkspaceReadDoc;
  webhooks: WebhookReadDoc;
  activity_by_performer: PerformerActivityReadDoc;
  activity_by_resource: SubjectActivityReadDoc;
  iteration_stories: IterationStoryReadDoc;
  story_transitions: StoryTransitionReadDoc;
  story_history: StoryHistoryReadDoc;
  story_words: StoryWordsReadDoc;
}

export type ReadModelName = keyof ReadModels;

/** The read models by name, each collection typed with its documents. */
export type ReadModelReader = <N extends ReadModelName>(name: N) => ReadOnlyCollection<ReadModels[N]>;

/**
 * `read` with each collection typed by its name. The one place where the store's JSON becomes typed
 * documents: the store holds whatever was written, and only the projectors above write these
 * collections, so the cast states what they write (a document a reader asks `fields` of holds those alone).
 */
export function typedReadModels(read: (name: string) => ReadOnlyCollection): ReadModelReader {
  return read as ReadModelReader; // the same function: no cost per read
}
