// The index of a project's story order that its state keeps (project-state.ts storyOrder()): every
// story, and each state's, in the one order, updated with every story change.
import type { StoryDoc, StoryState } from '../project-documents.js';
import { compareKeys } from '../rank.js';
import type { MaintainedIndex } from '../resource-state.js';
import { SortedBlocks } from '../sorted-blocks.js';

export class StoryOrderIndex implements MaintainedIndex<StoryDoc> {
  /** The one order: by rank, ties (never produced by rankInSlot) broken by id. */
  static inOrder(this: void, a: StoryDoc, b: StoryDoc): number {
    return compareKeys(a.rank, b.rank) || a.id - b.id;
  }

  readonly all = new SortedBlocks<StoryDoc>(StoryOrderIndex.inOrder);
  private readonly byState = new Map<StoryState, SortedBlocks<StoryDoc>>();

  replace(before: StoryDoc | undefined, after: StoryDoc | null): void {
    if (before) {
      this.all.delete(before);
      this.byState.get(before.current_state)?.delete(before);
    }
    if (after) {
      this.all.insert(after);
      let inState = this.byState.get(after.current_state);
      if (!inState) this.byState.set(after.current_state, (inState = new SortedBlocks<StoryDoc>(StoryOrderIndex.inOrder)));
      inState.insert(after);
    }
  }

  /** The stories of each state `accepts`, one ordered list per state. */
  statesWhere(accepts: (state: StoryState) => boolean): SortedBlocks<StoryDoc>[] {
    const lists: SortedBlocks<StoryDoc>[] = [];
    for (const [state, list] of this.byState) if (accepts(state)) lists.push(list);
    return lists;
  }
}
