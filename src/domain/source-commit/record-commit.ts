// Recording a commit a Git host reported (POST /source_commits) in one project: ONE event for every
// story of the project the message names, each getting a comment by the acting person and, when the
// message says so, the state move a client's PUT would make, decided by the story update rules
// themselves (story/update-story.ts; the comment rides on the update as its `note`).
//
// - A story the project does not hold, and one that already has a comment of this commit
//   (`commit_identifier` = the commit id), is skipped: recording a commit twice changes nothing.
// - Moves go forward only (finished < delivered < accepted): a delivered story a later commit "finishes"
//   keeps its state. A move the rules refuse (an unestimated feature that must be estimated, a release)
//   is not made; the comment says why.
// - The comment holds the message, its URL and its author; a message longer than a comment may be is cut
//   to fit, with a marker saying so.
// - Each story decides on the state the stories before it left (a working copy of the state), so two
//   stories moving to the same place in the order get distinct positions.
// When every story is skipped there is nothing to append: `duplicate_entry`, which the command treats
// as "nothing recorded in this project".
import type { ProjectState } from '../project-state.js';
import { MAX_COMMENT_TEXT, type NewComment } from '../comment/comment-writes.js';
import type { MentionedPerson } from '../comment/mentions.js';
import type { Decision, DecisionContext } from '../decision.js';
import { DomainError } from '../errors.js';
import type { DecidedChange, ResourceRef } from '../events.js';
import type { StoryState } from '../project-documents.js';
import { decideUpdateStory } from '../story/update-story.js';
import type { CommitMove, CommitStoryReference } from './commit-message.js';

export interface SourceCommit {
  commit_id: string;
  message: string;
  url?: string;
  author?: string;
  /** The Git host's kind (`github`, `gitlab`, ...) when the host sent one. */
  commit_type?: string;
}

export interface RecordCommitCommand {
  commit: SourceCommit;
  /** The stories of this project the message names (commit-message.ts). */
  stories: readonly CommitStoryReference[];
  /** Members the message `@mentions`, looked up by username. */
  mentioned_people?: readonly MentionedPerson[];
}

/** How far along the workflow a state is, for "moves go forward only". */
const DONE_RANK: Readonly<Partial<Record<StoryState, number>>> = { finished: 1, delivered: 2, accepted: 3 };

const CUT_MARKER = '\n[cut: the commit message is longer than a comment may be]';

export function decideRecordSourceCommit(command: RecordCommitCommand, state: ProjectState, context: DecisionContext): Decision {
  // Several stories decide one after the other on a working copy; one decides on the state itself.
  const work = command.stories.length > 1 ? state.workingCopy() : state;
  const changes: DecidedChange[] = [];
  const primary: ResourceRef[] = [];
  let moved = false;
  for (const reference of command.stories) {
    const story = work.stories.get(reference.story_id);
    if (!story || work.recordsCommit(story.id, command.commit.commit_id)) continue;
    const target = reference.moves_to !== null && movesForward(story.current_state, reference.moves_to) ? reference.moves_to : null;
    let decision: Decision | null = null;
    let refusal: string | null = null;
    if (target !== null) {
      try {
        decision = decideUpdateStory({ story_id: story.id, current_state: target, note: commitComment(command, null) }, work, context);
        moved = true;
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid_parameter') throw error;
        refusal = `Storyline did not move this story to ${target}: ${error.details.validation_errors?.[0]?.problem ?? error.message}`;
      }
    }
    decision ??= decideUpdateStory({ story_id: story.id, note: commitComment(command, refusal) }, work, context);
    changes.push(...decision.data.changes);
    primary.push(...decision.data.primary_resources);
    if (work !== state) work.foldStep(decision.data.changes);
  }
  const firstComment = changes.find((change) => change.kind === 'comment' && change.change_type === 'create');
  if (!firstComment) throw new DomainError('duplicate_entry', { general_problem: 'The commit is already recorded on every story it names here.' });
  return {
    type: moved ? 'story_update' : 'comment_create',
    data: { changes, primary_resources: primary },
    subject: { kind: 'comment', id: firstComment.id },
  };
}

function movesForward(current: StoryState, target: CommitMove): boolean {
  return (DONE_RANK[target] ?? 0) > (DONE_RANK[current] ?? 0);
}

/** The comment a commit leaves on a story: author, URL, message (cut to fit), and why a move was not made. */
export function commitComment(command: RecordCommitCommand, refusal: string | null): NewComment {
  const { commit } = command;
  const head = [commit.author ? `Commit by ${commit.author}` : 'Commit', commit.url].filter(Boolean).join('\n');
  const tail = refusal === null ? '' : `\n\n(${refusal})`;
  const room = MAX_COMMENT_TEXT - head.length - 2 - tail.length;
  const message = commit.message.length <= room ? commit.message : `${wholeCharacters(commit.message, room - CUT_MARKER.length)}${CUT_MARKER}`;
  return {
    text: `${head}\n\n${message}${tail}`,
    commit_identifier: commit.commit_id,
    ...(commit.commit_type !== undefined ? { commit_type: commit.commit_type } : {}),
    ...(command.mentioned_people && command.mentioned_people.length > 0 ? { mentioned_people: [...command.mentioned_people] } : {}),
  };
}

/** The text's first `length` UTF-16 units, without a surrogate pair cut in half. */
function wholeCharacters(text: string, length: number): string {
  const cut = text.slice(0, Math.max(0, length));
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
