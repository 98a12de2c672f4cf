// Commits from Git hosts: what the Pivotal Tracker integrations of GitLab, GitHub and Bitbucket posted
// for every pushed commit (the recording: commands/source-commits.ts, domain/source-commit/).
//
//   POST /source_commits    any person (X-TrackerToken); body
//                           {"source_commit": {"commit_id", "message", "url", "author", "commit_type"}}
//
// `commit_id` and `message` are required (400 naming the missing key); `url`, `author` and
// `commit_type` (the host's kind) are optional; any other key is 400 naming it. The answer is 200 with
// the comments made, an array (empty when the message names no story the caller may write, or the
// commit was recorded before). A message of any length is taken (within the body limit) and cut in the
// comment.
import { commitStoryReferences } from '../../domain/source-commit/commit-message.js';
import type { SourceCommit } from '../../domain/source-commit/record-commit.js';
import { TEXT_LIMITS } from '../../domain/input-limits.js';
import { SourceCommitCommands } from '../../commands/source-commits.js';
import { commandMeta } from '../command-meta.js';
import { requestSchema, text } from '../request-schema.js';
import type { RouteDefinition } from '../route-table.js';
import { mentionedPeople } from './comment-request.js';
import type { ResourceDeps, ResourceModule } from './resource-module.js';

/** A commit id: a Git SHA-1 or SHA-256 in hex, or another system's revision. */
const COMMIT_ID_MAX_LENGTH = 255;

const checkEnvelope = requestSchema<{ source_commit: Record<string, unknown> }>({
  type: 'object',
  properties: { source_commit: { type: 'object', description: 'commit_id and message (required), url, author, commit_type' } },
  required: ['source_commit'],
  additionalProperties: false,
});

const checkCommit = requestSchema<SourceCommit>({
  type: 'object',
  properties: {
    commit_id: text(COMMIT_ID_MAX_LENGTH),
    message: { type: 'string' },
    url: text(TEXT_LIMITS.attachment_link),
    author: text(TEXT_LIMITS.person_name),
    commit_type: text(TEXT_LIMITS.short_text),
  },
  required: ['commit_id', 'message'],
  additionalProperties: false,
});

export function sourceCommitResources(deps: ResourceDeps): ResourceModule {
  const commits = new SourceCommitCommands({ writer: deps.writer, stories: deps.read('stories'), comments: deps.read('comments') });
  const people = deps.read('people');

  const routes: RouteDefinition[] = [
    {
      method: 'POST',
      path: '/source_commits',
      access: 'person',
      input: { body: checkEnvelope },
      answers: { type: 'comment', list: true },
      summary: 'Record a commit from a Git host: a comment on each story its message names, finishing or delivering it when asked',
      async handle(req) {
        // The commit's own keys are checked here, so that a refusal names the key (`commit_id`), not its envelope.
        const commit = checkCommit(checkEnvelope.read(req).source_commit);
        const stories = commitStoryReferences(commit.message);
        const mentioned = await mentionedPeople(people, [commit.message]);
        const mayWrite = (projectId: number) => req.accessTo(projectId, 'project:write').then(() => true, () => false);
        const made = await commits.record({ commit, stories, mentioned_people: mentioned }, mayWrite, commandMeta(req));
        return { kind: 'resource', type: 'comment', value: made };
      },
    },
  ];
  return { routes, types: [], reference: { tag: 'Source commits', description: 'Commits pushed to a Git host, recorded as comments on the stories their messages name.' } };
}
