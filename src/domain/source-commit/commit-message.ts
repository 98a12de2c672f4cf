// The stories a commit message names, Tracker's way (its "SCM post-commit" syntax): square brackets
// holding story ids, each written `#<id>`, optionally led by a verb that moves the stories:
//
//   [#123]   [#123 #456]   [#123, #456]   [Finishes #123]   [fixed #123 #456]   [Delivers #789]
//
// Verbs, in any case: Finishes / Finished / Fixes / Fixed / Completes / Completed (the story goes to
// `finished`) and Delivers / Delivered (to `delivered`). Any other bracket (`[WIP]`, `[skip ci]`, an
// unknown verb) names nothing. A story named twice goes as far as its furthest verb says.
export type CommitMove = 'finished' | 'delivered';

export interface CommitStoryReference {
  story_id: number;
  /** Where the message sends the story; null when it only names it. */
  moves_to: CommitMove | null;
}

/** The stories one message may name: past these the rest are not looked at (a commit is no bulk edit). */
export const MAX_COMMIT_STORY_REFERENCES = 100;

const VERBS: Readonly<Record<string, CommitMove>> = {
  finishes: 'finished',
  finished: 'finished',
  fixes: 'finished',
  fixed: 'finished',
  completes: 'finished',
  completed: 'finished',
  delivers: 'delivered',
  delivered: 'delivered',
};

const BRACKET = /\[([^[\]]*)\]/g;
/** An optional verb, then one or more `#id` separated by spaces or commas. */
const REFERENCE = /^\s*(?:([A-Za-z]+)\s+)?(#[0-9]+(?:[\s,]+#[0-9]+)*)\s*,?\s*$/;

/** The stories the message names, in order of first mention, with the furthest move asked for each. */
export function commitStoryReferences(message: string): CommitStoryReference[] {
  const found = new Map<number, CommitMove | null>();
  for (const [, inside] of message.matchAll(BRACKET)) {
    const match = REFERENCE.exec(inside!);
    if (!match) continue;
    const verb = match[1]?.toLowerCase();
    if (verb !== undefined && !Object.hasOwn(VERBS, verb)) continue;
    const move = verb === undefined ? null : VERBS[verb]!;
    for (const [digits] of match[2]!.matchAll(/[0-9]+/g)) {
      const id = Number(digits);
      if (!Number.isSafeInteger(id) || id < 1) continue;
      if (!found.has(id) && found.size >= MAX_COMMIT_STORY_REFERENCES) continue;
      found.set(id, furthest(found.get(id) ?? null, move));
    }
  }
  return [...found].map(([story_id, moves_to]) => ({ story_id, moves_to }));
}

function furthest(a: CommitMove | null, b: CommitMove | null): CommitMove | null {
  if (a === 'delivered' || b === 'delivered') return 'delivered';
  return a ?? b;
}
