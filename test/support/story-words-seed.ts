// Seeds the text index (story_words) of stories written straight into a read store, through the
// projection itself: each story is replayed as the create of an event of its project's stream.
import { EVENT_SCHEMA, type RecordedEvent } from '../../src/domain/events.js';
import type { Doc, ReadStore } from '../../src/ports/read-store.js';
import { STORY_WORDS, storyWordsProjection } from '../../src/projections/search/story-words-projection.js';

export function storyCreatedEvent(story: Doc, position: number): RecordedEvent {
  return {
    id: `seed-${position}`, stream: `project-${String(story.project_id)}`, version: position, position, type: 'story_create',
    data: { changes: [{ kind: 'story', change_type: 'create', id: story.id, new_values: story }], primary_resources: [{ kind: 'story', id: story.id }] },
    meta: { schema: EVENT_SCHEMA, occurred_at: 0, performed_by: null, command_id: `seed-${position}` },
  };
}

export async function seedStoryWords(store: ReadStore, stories: readonly Doc[]): Promise<void> {
  const collection = store.collection(STORY_WORDS);
  await collection.ensureIndexes(storyWordsProjection.collections[0]!.indexes);
  const ops = stories.flatMap((story, index) => storyWordsProjection.apply(storyCreatedEvent(story, index + 1)).flatMap((write) => write.ops));
  await collection.write(ops);
}
