// What the story CSVs share beyond the one CSV writer (src/domain/csv.ts): the "Owned By" columns (one
// per owner, at least two) and the ids of a stored id list.
import type { StoryReadDoc } from '../projections/documents.js';

export const MIN_OWNER_COLUMNS = 2;

/** The integer ids of a stored id list (`label_ids`, `owner_ids`). */
export function idsOf(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((id): id is number => typeof id === 'number') : [];
}

/** How many "Owned By" columns stories need: their most owners, at least two. */
export function ownerColumnCount(stories: readonly Pick<StoryReadDoc, 'owner_ids'>[]): number {
  return Math.max(MIN_OWNER_COLUMNS, ...stories.map((story) => idsOf(story.owner_ids).length));
}

/** A story's owner names, padded with empty fields to `columns`. */
export function ownerFields(story: Pick<StoryReadDoc, 'owner_ids'>, personName: ReadonlyMap<number, string>, columns: number): string[] {
  const owners = idsOf(story.owner_ids).map((id) => personName.get(id) ?? '');
  return [...owners, ...Array<string>(columns - owners.length).fill('')];
}
