// A commit reported by a Git host (POST /source_commits): the stories its message names are found in
// the read models, grouped by project, and each project the acting person may write gets ONE command
// (domain/source-commit/record-commit.ts), so one commit changes each project it touches in one event.
// Projects are written in id order; each command has its own id (the request's, with the project), so a
// retried request records nothing twice. Stories the person may not write, unknown ids and commits
// already recorded are skipped; the answer is the comments made.
import { DomainError } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import type { MentionedPerson } from '../domain/comment/mentions.js';
import type { CommitStoryReference } from '../domain/source-commit/commit-message.js';
import { decideRecordSourceCommit, type SourceCommit } from '../domain/source-commit/record-commit.js';
import type { Doc } from '../ports/read-store.js';
import type { CommandMeta } from './command-handler.js';
import type { ReadView } from './read-view.js';
import type { ResourceWriter } from './resource-writer.js';

export interface SourceCommitDeps {
  writer: ResourceWriter;
  stories: ReadView;
  comments: ReadView;
}

export interface CommitToRecord {
  commit: SourceCommit;
  stories: readonly CommitStoryReference[];
  mentioned_people: readonly MentionedPerson[];
}

export class SourceCommitCommands {
  constructor(private readonly deps: SourceCommitDeps) {}

  /** Records the commit on every story it names that `mayWrite` allows; returns the comments made. */
  async record(input: CommitToRecord, mayWrite: (projectId: number) => Promise<boolean>, meta: CommandMeta): Promise<Doc[]> {
    if (input.stories.length === 0) return [];
    const found = await this.deps.stories.find({ id: { $in: input.stories.map((story) => story.story_id) } });
    const projectOf = new Map(found.map((story) => [story.id, Number(story['project_id'])]));
    const byProject = new Map<number, CommitStoryReference[]>();
    for (const reference of input.stories) {
      const projectId = projectOf.get(reference.story_id);
      if (projectId === undefined) continue;
      byProject.set(projectId, [...(byProject.get(projectId) ?? []), reference]);
    }
    const made: Doc[] = [];
    for (const projectId of [...byProject.keys()].sort((a, b) => a - b)) {
      if (!(await mayWrite(projectId))) continue;
      const command = { commit: input.commit, stories: byProject.get(projectId)!, mentioned_people: input.mentioned_people };
      const projectMeta = { ...meta, commandId: `${meta.commandId}:project-${projectId}` };
      try {
        const outcome = await this.deps.writer.execute(streams.project(projectId), decideRecordSourceCommit, command, projectMeta);
        const ids = outcome.event.data.changes.filter((change) => change.kind === 'comment' && change.change_type === 'create').map((change) => change.id);
        const comments = await this.deps.comments.find({ id: { $in: ids }, project_id: projectId });
        made.push(...ids.map((id) => comments.find((comment) => comment.id === id)).filter((comment): comment is Doc => comment !== undefined));
      } catch (error) {
        // Already recorded on every story there, or the stories (the project) went away meanwhile.
        if (error instanceof DomainError && (error.code === 'duplicate_entry' || error.code === 'unfound_resource')) continue;
        throw error;
      }
    }
    return made;
  }
}
