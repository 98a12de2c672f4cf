// The text index of stories: one small document per story (id = the story's id) listing the distinct
// words of its name and of its description, folded as src/domain/search/search-words.ts says. Both lists are
// indexed (multikey), so a word resolves to the stories holding it with one indexed lookup, and a
// word's beginning (`web*`) to an indexed range of words ($elemMatch $gte / $lt).
//
// One document per story rather than per word: read-store documents need integer ids, a story's id is
// one, and a story's change rewrites its own document only (a name change sets `name_words` afresh, no
// old words to find and remove). Like the resources projection, updates and deletes only touch the
// document of the event's project, so a move (a create in the target stream, a delete in the source
// one) never undoes itself whatever the order.
import { projectIdOfStream, type RecordedEvent, type ResourceChange, type Values } from '../../domain/events.js';
import { searchWords } from '../../domain/search/search-words.js';
import type { WriteOp } from '../../ports/read-store.js';
import type { StoryWordsReadDoc } from '../documents.js';
import type { ProjectedWrite, Projection } from '../projection.js';

export const STORY_WORDS = 'story_words';

/** The story fields whose words are indexed, and the list each one lands in. */
export const INDEXED_TEXT_FIELDS = { name: 'name_words', description: 'description_words' } as const;
export type IndexedTextField = keyof typeof INDEXED_TEXT_FIELDS;
/** The word lists of a story_words document. */
export type IndexedWordList = (typeof INDEXED_TEXT_FIELDS)[IndexedTextField];

function wordsOf(value: unknown): string[] {
  return typeof value === 'string' ? searchWords(value) : [];
}

type WordLists = Partial<Pick<StoryWordsReadDoc, IndexedWordList>>;

/** The word lists a change sets: every indexed field its new values name. */
function changedWords(values: Values | undefined): WordLists {
  const set: WordLists = {};
  for (const field of Object.keys(INDEXED_TEXT_FIELDS) as IndexedTextField[]) {
    if (values && field in values) set[INDEXED_TEXT_FIELDS[field]] = wordsOf(values[field]);
  }
  return set;
}

type Pending = { type: 'create'; doc: StoryWordsReadDoc } | { type: 'update'; set: WordLists } | { type: 'delete' };

/** Several changes of one story in one event merge into one write (the replay guard allows one). */
function pendingOf(change: ResourceChange, projectId: number, earlier: Pending | undefined): Pending {
  if (change.change_type === 'delete') return { type: 'delete' };
  const set = changedWords(change.new_values);
  if (change.change_type === 'create') return { type: 'create', doc: { id: change.id, project_id: projectId, name_words: [], description_words: [], ...set } };
  if (earlier?.type === 'create') return { type: 'create', doc: { ...earlier.doc, ...set } };
  if (earlier?.type === 'update') return { type: 'update', set: { ...earlier.set, ...set } };
  return earlier?.type === 'delete' ? earlier : { type: 'update', set };
}

function opOf(id: number, projectId: number, pending: Pending): WriteOp | null {
  switch (pending.type) {
    case 'create':
      return { op: 'replace', filter: { id }, doc: pending.doc, upsert: true };
    case 'delete':
      return { op: 'delete', filter: { id, project_id: projectId } };
    case 'update':
      return Object.keys(pending.set).length > 0 ? { op: 'update', filter: { id, project_id: projectId }, update: { $set: pending.set } } : null;
  }
}

function apply(event: RecordedEvent): ProjectedWrite[] {
  const projectId = projectIdOfStream(event.stream);
  if (projectId === null) return [];
  const pendings = new Map<number, Pending>();
  for (const change of event.data.changes) {
    if (change.kind === 'story') pendings.set(change.id, pendingOf(change, projectId, pendings.get(change.id)));
  }
  const ops: WriteOp[] = [];
  for (const [id, pending] of pendings) {
    const op = opOf(id, projectId, pending);
    if (op) ops.push(op);
  }
  return ops.length > 0 ? [{ collection: STORY_WORDS, ops }] : [];
}

export const storyWordsProjection: Projection = {
  name: 'story-words',
  version: 1,
  collections: [{ name: STORY_WORDS, indexes: [{ field: 'project_id' }, { field: 'name_words' }, { field: 'description_words' }] }],
  apply,
};
