// The generic read model of resources: every change an event lists lands in the collection of its
// kind, so stories, labels, tasks, ... are queryable as documents shaped like their latest state
// (the stored values of src/domain/resource-state.ts: no derived keys, no nulls, plus `rank`).
//
// - create  -> replace-with-upsert of the whole document (a create starts the resource afresh, as
//              applyChange does; a story moved into another project is a create in the target stream)
// - update  -> $set of the stored values, $unset of the ones that became null
// - delete  -> delete
// Project-scoped resources written by an event of a project stream carry `project_id`, and updates and
// deletes only touch the document of that project (so a move's create and delete, in two streams, never
// undo each other whatever their order). The `projects` document carries `version`, the number of its
// stream's last event. Each document gets at most one write per event (the runner's replay guard lets
// an event touch a document once), so several changes of one resource in one event are merged first.
import type { RecordedEvent, ResourceChange, ResourceKind, Values } from '../../domain/events.js';
import { projectIdOfStream } from '../../domain/events.js';
import { storedValues } from '../../domain/resource-state.js';
import type { Doc, IndexSpec, WriteOp } from '../../ports/read-store.js';
import type { ProjectedWrite, Projection, ProjectionCollection } from '../projection.js';

/** Id blocks have no read model; notifications live in the notifications reaction's own collection. */
type ProjectedKind = Exclude<ResourceKind, 'id_block' | 'notification'>;

export const resourceCollections: Readonly<Record<ProjectedKind, string>> = {
  project: 'projects',
  project_membership: 'project_memberships',
  story: 'stories',
  label: 'labels',
  task: 'tasks',
  comment: 'comments',
  file_attachment: 'file_attachments',
  blocker: 'blockers',
  epic: 'epics',
  iteration_override: 'iteration_overrides',
  person: 'people',
  account: 'accounts',
  account_membership: 'account_memberships',
  saved_search: 'saved_searches',
  review_type: 'review_types',
  review: 'reviews',
  workspace: 'workspaces',
  webhook: 'webhooks',
};

/** Kinds that live inside one project and carry its `project_id`. */
const PROJECT_SCOPED: ReadonlySet<ResourceKind> = new Set<ResourceKind>([
  'project_membership',
  'story',
  'label',
  'task',
  'comment',
  'file_attachment',
  'blocker',
  'epic',
  'iteration_override',
  'saved_search',
  'review_type',
  'review',
  'webhook',
]);

const byProject: IndexSpec = { field: 'project_id' };

/** Indexes: what the API's queries filter on (spec endpoints in comments). */
const indexes: Readonly<Record<ProjectedKind, IndexSpec[]>> = {
  project: [{ field: 'account_id' }], // GET /projects?account_ids=
  project_membership: [byProject, { field: 'person_id' }], // a person's projects (/me, auth)
  // search and filter= by label / epic, owner / mywork, state (and the done stories a search leaves out);
  // rank: a range of the priority order (after_story_id); rank within project_id: a page of a project
  // walks its priority order and reads only its own stories, not every story's rank (a cold disk)
  story: [byProject, { field: 'label_ids' }, { field: 'owner_ids' }, { field: 'current_state' }, { field: 'rank' }, { field: 'rank', within: 'project_id' }],
  label: [byProject],
  task: [byProject, { field: 'story_id' }], // /stories/{id}/tasks
  comment: [byProject, { field: 'story_id' }, { field: 'epic_id' }], // story and epic comments
  // a comment's files; downloads and the unreferenced-blob sweep look files up by content hash
  file_attachment: [byProject, { field: 'comment_id' }, { field: 'content_hash' }],
  blocker: [byProject, { field: 'story_id' }], // /stories/{id}/blockers
  epic: [byProject, { field: 'label_id' }], // an epic's stories are those with its label
  iteration_override: [byProject],
  person: [{ field: 'email' }, { field: 'username' }], // sign-in by username or email, invitations by email
  account: [],
  account_membership: [{ field: 'account_id' }, { field: 'person_id' }], // /accounts/{id}/memberships, a person's accounts
  saved_search: [byProject], // /projects/{id}/my/searches (then by owner_id)
  review_type: [byProject], // /projects/{id}/review_types
  review: [byProject, { field: 'story_id' }], // /stories/{id}/reviews; search's review terms read a project's reviews
  workspace: [{ field: 'person_id' }], // /my/workspaces: a person's own
  webhook: [byProject], // /projects/{id}/webhooks
};

/** What one event does to one document, after merging every change of it in that event. */
type PendingWrite =
  | { type: 'create'; doc: Doc }
  | { type: 'update'; set: Values; unset: Set<string> }
  | { type: 'delete' };

interface Pending {
  collection: string;
  id: number;
  scoped: boolean;
  write: PendingWrite;
}

function createdDoc(change: ResourceChange, projectId: number | null): Doc {
  const doc = storedValues(change.kind, change.new_values).set as Doc; // a fresh object: completed in place
  doc.id = change.id;
  if (change.rank !== undefined) doc.rank = change.rank;
  if (projectId !== null) doc.project_id = projectId;
  return doc;
}

function updateOf(change: ResourceChange): PendingWrite & { type: 'update' } {
  const { set, unset } = storedValues(change.kind, change.new_values);
  if (change.rank !== undefined) set.rank = change.rank;
  delete set.id;
  return { type: 'update', set, unset: new Set(unset) };
}

/** The write of a change following `earlier` on the same document within one event. */
function merge(earlier: PendingWrite, change: ResourceChange, projectId: number | null): PendingWrite {
  if (change.change_type === 'delete') return { type: 'delete' };
  if (change.change_type === 'create') return { type: 'create', doc: createdDoc(change, projectId) };
  if (earlier.type === 'delete') return earlier;
  const next = updateOf(change);
  if (earlier.type === 'create') {
    const doc = { ...earlier.doc, ...next.set };
    for (const key of next.unset) delete doc[key];
    return { type: 'create', doc };
  }
  for (const key of next.unset) delete earlier.set[key];
  for (const key of Object.keys(next.set)) earlier.unset.delete(key);
  return { type: 'update', set: { ...earlier.set, ...next.set }, unset: new Set([...earlier.unset, ...next.unset]) };
}

function toOp(pending: Pending, projectId: number | null): WriteOp | null {
  const filter: Record<string, unknown> = { id: pending.id };
  const { write } = pending;
  if (write.type === 'create') return { op: 'replace', filter, doc: write.doc, upsert: true };
  if (pending.scoped && projectId !== null) filter.project_id = projectId;
  if (write.type === 'delete') return { op: 'delete', filter };
  const update: Record<string, unknown> = {};
  if (Object.keys(write.set).length > 0) update.$set = write.set;
  if (write.unset.size > 0) update.$unset = Object.fromEntries([...write.unset].map((key) => [key, '']));
  return Object.keys(update).length > 0 ? { op: 'update', filter, update } : null;
}

/** Stamps the project's version on its document, within the write the event already makes to it. */
function stampVersion(pendings: Pending[], projectId: number, version: number): void {
  const pending = pendings.find((candidate) => candidate.collection === 'projects' && candidate.id === projectId);
  if (!pending) {
    pendings.push({ collection: 'projects', id: projectId, scoped: false, write: { type: 'update', set: { version }, unset: new Set() } });
  } else if (pending.write.type === 'create') pending.write.doc.version = version;
  else if (pending.write.type === 'update') pending.write.set.version = version;
}

// An event lists a handful of changes, so pending writes are kept in an array and searched linearly:
// cheaper than maps with composite string keys on the replay's hot path.
function apply(event: RecordedEvent): ProjectedWrite[] {
  const projectId = projectIdOfStream(event.stream);
  const pendings: Pending[] = [];
  for (const change of event.data.changes) {
    if (change.kind === 'id_block' || change.kind === 'notification') continue;
    const collection = resourceCollections[change.kind];
    if (!collection) continue;
    const scoped = PROJECT_SCOPED.has(change.kind);
    const scopeId = scoped ? projectId : null;
    const earlier = pendings.find((pending) => pending.collection === collection && pending.id === change.id);
    if (earlier) {
      earlier.write = merge(earlier.write, change, scopeId);
      continue;
    }
    const write: PendingWrite =
      change.change_type === 'create'
        ? { type: 'create', doc: createdDoc(change, scopeId) }
        : change.change_type === 'delete'
          ? { type: 'delete' }
          : updateOf(change);
    pendings.push({ collection, id: change.id, scoped, write });
  }
  if (projectId !== null) stampVersion(pendings, projectId, event.version);

  const writes: ProjectedWrite[] = [];
  for (const pending of pendings) {
    const op = toOp(pending, projectId);
    if (!op) continue;
    const write = writes.find(({ collection }) => collection === pending.collection);
    if (write) write.ops.push(op);
    else writes.push({ collection: pending.collection, ops: [op] });
  }
  return writes;
}

export const resourcesProjection: Projection = {
  name: 'resources',
  // Kinds added later (review types, reviews, workspaces) need no new version: no earlier event holds
  // them, so the documents of a log written before them are the same; their collections and indexes
  // are created at start.
  // 2: comments keep their ext_attachments; file attachments and blockers projected. 3: whole-second
  // datetimes (event schema 2). 4: account memberships' time flags, the creator no admin (event schema 3)
  version: 4,
  collections: (Object.keys(resourceCollections) as ProjectedKind[]).map(
    (kind): ProjectionCollection => ({ name: resourceCollections[kind], indexes: indexes[kind] }),
  ),
  apply,
};
