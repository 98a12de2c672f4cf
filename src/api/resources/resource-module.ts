// How a resource module plugs into the composition root (src/infra/composition.ts): it exports a factory
//
//   export function storyResources(deps: ResourceDeps): ResourceModule { return { routes, types }; }
//
// taking everything it needs from `deps` (no globals, no imports of adapters), and the root lists it in
// src/api/resources/index.ts. Reads go to the live read models through `deps.read(<collection>)` or to a
// query of src/queries/; writes go through `deps.writer` (the one ResourceWriter over the command
// handler) with a decider from src/domain/, or through an operation group of src/commands/ when the write
// reads or touches more than one stream (people, projects, accounts, memberships, story moves).
import type { StorySearches } from '../../queries/search/search-project.js';
import type { ReadModelChanges } from '../../ports/read-model-changes.js';
import type { AccountCommands } from '../../commands/accounts.js';
import type { CommandHandler } from '../../commands/command-handler.js';
import type { InvitationCommands } from '../../commands/invitations.js';
import type { MembershipCommands } from '../../commands/memberships.js';
import type { PeopleCommands } from '../../commands/people.js';
import type { ProjectCommands } from '../../commands/projects.js';
import type { ResourceWriter } from '../../commands/resource-writer.js';
import type { FileUploads } from '../../ports/blob-store.js';
import type { PersonSecretsPort } from '../../ports/credentials.js';
import type { ProjectViewReads } from '../../ports/project-views.js';
import type { ActivityFeeds } from '../../queries/activity-feeds.js';
import type { NotificationQueries } from '../../queries/notifications.js';
import type { PeopleAsSeen } from '../../queries/email-visibility.js';
import type { ReadOnlyCollection } from '../../ports/read-store.js';
import type { ReadModelReader } from '../../projections/documents.js';
import type { LiveActivity } from '../live-activity.js';
import type { WebhookServices } from './webhooks.js';
import type { ResourceType } from '../resource-type.js';
import type { RouteDefinition } from '../route-table.js';

export interface ResourceSettings {
  /** Public address of the site, without trailing slash, for `url` attributes and download links. */
  siteUrl: string;
  /** Months of activity history shown for non-enterprise accounts (null: no limit). */
  activityWindowMonths: number | null;
  /** Months of activity history shown for enterprise accounts (null: no limit). */
  enterpriseActivityWindowMonths: number | null;
  /** Most work one search may do in the read store (ReadBudget units; STORYLINE_SEARCH_WORK). */
  searchWork: number;
}

export interface ResourceDeps {
  /** A live read-model collection by logical name (`stories`, `people`, ...); always the live generation. */
  read: ReadModelReader;
  /** Resolves once the read models have applied the global position (read-your-writes). */
  waitForPosition(position: number): Promise<void>;
  /** Moves after every change of the live read models: answers remembered from them keep while it stays. */
  readModelChanges: ReadModelChanges;
  commands: CommandHandler;
  /** Runs a decider on a stream and reads back the resource it wrote (every write goes through it). */
  writer: ResourceWriter;
  /** Adding, inviting and updating people (shared by /me, memberships, accounts). */
  people: PeopleCommands;
  /** Creating, changing and deleting projects (and the account a project may come with). */
  projects: ProjectCommands;
  accounts: AccountCommands;
  memberships: MembershipCommands;
  /** One-time invitation links for people who cannot sign in yet (made, read, accepted). */
  invitations: InvitationCommands;
  /** Passwords and API tokens. */
  secrets: PersonSecretsPort;
  /** The queries that read more than one read model or the event store (the only readers of the log). */
  queries: Queries;
  settings: ResourceSettings;
  /** Uploaded files' bytes (the blob store, behind the multipart reader). */
  uploads: FileUploads;
  /** When people last viewed projects (membership `last_viewed_at`; kept outside the log). */
  projectViews: ProjectViewReads;
  /** The open live activity streams (GET .../activity/stream). */
  liveActivity: LiveActivity;
  /** Webhooks' address check, signing secrets and delivery progress. */
  webhooks: WebhookServices;
}

export interface Queries {
  activity: ActivityFeeds;
  /** Searches of the live read models (/search, the stories list's `filter`): evaluated off the serving thread where the read models are a file. */
  searches: StorySearches;
  /** A person's notifications (made by the notifications reaction). */
  notifications: NotificationQueries;
  /** People with `email` only where the one email rule lets the caller see it. */
  people: PeopleAsSeen;
  /** What the thumbnails reaction made of uploaded images, by file attachment id (src/reactions/thumbnails.ts). */
  fileThumbnails: ReadOnlyCollection;
}

export interface ResourceModule {
  /** The module's tag in the API reference (src/api/openapi/) and what it is about, in a sentence. */
  reference: { tag: string; description: string };
  routes: RouteDefinition[];
  types: ResourceType[];
}

export type ResourceModuleFactory = (deps: ResourceDeps) => ResourceModule;
