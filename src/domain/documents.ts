// The stored document of each kind of resource, by kind: what typed state collections hold and what
// the values of a change of that kind describe (events.ts DecidedChange). Types only.
import type { AccountDoc, AccountMembershipDoc } from './account/account-state.js';
import type { BlockerDoc } from './blocker/blocker-changes.js';
import type { CommentDoc } from './comment/comment-writes.js';
import type { EpicDoc } from './epic/epic-state.js';
import type { FileAttachmentDoc } from './file-attachment/upload-file.js';
import type { PersonDoc } from './person/person-state.js';
import type { LabelDoc, MembershipDoc, ProjectDoc, StoryDoc, TaskDoc } from './project-documents.js';
import type { IterationOverrideDoc } from './project-state.js';
import type { ResourceDoc } from './resource-state.js';
import type { ReviewDoc, ReviewTypeDoc } from './review/review-state.js';
import type { SavedSearchDoc } from './saved-search/saved-search-rules.js';
import type { WebhookDoc } from './webhook/webhook-rules.js';
import type { WorkspaceDoc } from './workspace/workspace-rules.js';

export interface DocumentsByKind {
  project: ProjectDoc;
  project_membership: MembershipDoc;
  story: StoryDoc;
  label: LabelDoc;
  task: TaskDoc;
  comment: CommentDoc;
  file_attachment: FileAttachmentDoc;
  blocker: BlockerDoc;
  epic: EpicDoc;
  iteration_override: IterationOverrideDoc;
  person: PersonDoc;
  account: AccountDoc;
  account_membership: AccountMembershipDoc;
  saved_search: SavedSearchDoc;
  review_type: ReviewTypeDoc;
  review: ReviewDoc;
  workspace: WorkspaceDoc;
  webhook: WebhookDoc;
  /** A notification's read state (its text lives in the notifications read model). */
  notification: ResourceDoc & { read_at?: number; updated_at?: number };
  /** A block of ids handed to one process (ids streams). */
  id_block: ResourceDoc;
}
