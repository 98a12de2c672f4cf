// Seeded random sequences of story, comment, upload and blocker writes (rejections allowed), checking
// after every step what must always hold in the project's state:
// - a story's blocked_story_ids are exactly the other stories with an unresolved blocker naming it;
// - a file's comment_id names a comment that lists the file, and every file a comment lists names it;
// - a comment's attachment_ids are its file ids, then its ext attachment ids.
import { expect } from 'chai';
import { decideCreateBlocker } from '../../../src/domain/blocker/create-blocker.js';
import { decideDeleteBlocker } from '../../../src/domain/blocker/delete-blocker.js';
import { decideUpdateBlocker } from '../../../src/domain/blocker/update-blocker.js';
import type { BlockerDoc } from '../../../src/domain/blocker/blocker-changes.js';
import { decideCreateComment } from '../../../src/domain/comment/create-comment.js';
import type { CommentDoc } from '../../../src/domain/comment/comment-writes.js';
import { decideDeleteComment } from '../../../src/domain/comment/delete-comment.js';
import { decideUpdateComment } from '../../../src/domain/comment/update-comment.js';
import { DomainError } from '../../../src/domain/errors.js';
import { decideCreateStory } from '../../../src/domain/story/create-story.js';
import { decideDeleteStory } from '../../../src/domain/story/delete-story.js';
import { seededRandom } from '../../support/seeded-random.js';
import { upload } from './conversation-scenario.js';
import { givenProject, OWNER } from './decider-scenario.js';
import type { Scenario } from './decider-scenario.js';
import type { Decider } from '../../../src/domain/decision.js';

const STEPS = 400;

function ids(project: Scenario, kind: 'story' | 'comment' | 'blocker' | 'file_attachment'): number[] {
  return [...project.state[({ story: 'stories', comment: 'comments', blocker: 'blockers', file_attachment: 'fileAttachments' } as const)[kind]]].map((doc) => doc.id);
}

function checkInvariants(project: Scenario): void {
  const blockers = [...project.state.blockers];
  for (const story of project.state.stories) {
    const expected = new Set(
      blockers
        .filter((blocker) => !blocker.resolved && blocker.story_id !== story.id && blocker.description === `#${story.id}`)
        .map((blocker) => blocker.story_id),
    );
    expect([...(story.blocked_story_ids ?? [])].sort(), `blocked_story_ids of ${story.id}`).to.deep.equal([...expected].sort());
  }
  const comments = new Map([...project.state.comments].map((comment) => [comment.id, comment]));
  for (const file of project.state.fileAttachments) {
    if (file.comment_id === undefined) continue;
    expect(comments.get(file.comment_id)?.file_attachment_ids, `comment of file ${file.id}`).to.include(file.id);
  }
  for (const comment of comments.values()) {
    for (const fileId of comment.file_attachment_ids) {
      const file = project.state.fileAttachments.get(fileId);
      expect(file?.comment_id, `file ${fileId} of comment ${comment.id}`).to.equal(comment.id);
    }
    expect(comment.attachment_ids).to.deep.equal([...comment.file_attachment_ids, ...comment.ext_attachment_ids]);
  }
}

describe('conversation invariants over seeded random writes', () => {
  for (const seed of [1, 2, 3]) {
    it(`hold after every step (seed ${seed})`, () => {
      const random = seededRandom(seed);
      const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(random() * list.length)];
      const some = <T>(list: readonly T[]): T[] => list.filter(() => random() < 0.3);
      const project = givenProject();
      let accepted = 0;
      const attempt = <C>(decide: Decider<C>, command: C) => {
        try {
          project.when(decide, command, OWNER);
          accepted += 1;
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
        }
      };
      const storyRef = () => `#${pick(ids(project, 'story')) ?? 0}`;
      for (let step = 0; step < STEPS; step++) {
        const stories = ids(project, 'story');
        const story = pick(stories) ?? 0;
        const comment = project.state.comments.get(pick(ids(project, 'comment')) ?? 0) as CommentDoc | undefined;
        const blocker = project.state.blockers.get(pick(ids(project, 'blocker')) ?? 0) as BlockerDoc | undefined;
        const files = ids(project, 'file_attachment');
        switch (Math.floor(random() * 10)) {
          case 0:
            attempt(decideCreateStory, {
              name: `story ${step}`,
              blockers: random() < 0.5 ? [{ description: storyRef() }] : [],
              comments: random() < 0.5 ? [{ text: 'nested', file_attachment_ids: some(files) }] : [],
            });
            break;
          case 1:
            upload(project, `file-${step}.txt`, OWNER, step + 1);
            break;
          case 2:
            attempt(decideCreateComment, { story_id: story, text: random() < 0.8 ? 'hi' : undefined, file_attachment_ids: some(files) });
            break;
          case 3:
            if (comment?.story_id !== undefined) {
              attempt(decideUpdateComment, {
                story_id: comment.story_id,
                comment_id: comment.id,
                file_attachment_ids_to_add: some(files),
                attachment_ids_to_remove: some(comment.attachment_ids),
                attachments_to_add: random() < 0.3 ? [{ title: 'link' }] : undefined,
              });
            }
            break;
          case 4:
            if (comment?.story_id !== undefined) attempt(decideDeleteComment, { story_id: comment.story_id, comment_id: comment.id });
            break;
          case 5:
          case 6:
            attempt(decideCreateBlocker, { story_id: story, description: storyRef(), resolved: random() < 0.2 });
            break;
          case 7:
            if (blocker) {
              attempt(decideUpdateBlocker, {
                story_id: blocker.story_id,
                blocker_id: blocker.id,
                ...(random() < 0.5 ? { resolved: !blocker.resolved } : { description: storyRef() }),
              });
            }
            break;
          case 8:
            if (blocker) attempt(decideDeleteBlocker, { story_id: blocker.story_id, blocker_id: blocker.id });
            break;
          default:
            if (stories.length > 3) attempt(decideDeleteStory, { story_id: story });
        }
        checkInvariants(project);
      }
      expect(accepted, 'most writes are accepted').to.be.greaterThan(STEPS / 2);
    });
  }
});
