import { expect } from 'chai';
import { decideCreateComment } from '../../../src/domain/comment/create-comment.js';
import type { CommentDoc } from '../../../src/domain/comment/comment-writes.js';
import type { CreateCommentCommand } from '../../../src/domain/comment/create-comment.js';
import { decideDeleteComment } from '../../../src/domain/comment/delete-comment.js';
import { decideDeleteCommentAttachment } from '../../../src/domain/comment/delete-comment-attachment.js';
import { decideUpdateComment } from '../../../src/domain/comment/update-comment.js';
import { mentionedUsernames } from '../../../src/domain/comment/mentions.js';
import { decideCreateEpic } from '../../../src/domain/epic/create-epic.js';
import { decideCreateStory } from '../../../src/domain/story/create-story.js';
import { decideDeleteStory } from '../../../src/domain/story/delete-story.js';
import { decideUpdateStory } from '../../../src/domain/story/update-story.js';
import { changeKinds, contentHash, fileDoc, upload } from './conversation-scenario.js';
import { givenProject, MEMBER, OWNER, problemsOf, STRANGER, VIEWER } from './decider-scenario.js';
import type { Scenario } from './decider-scenario.js';

const createComment = decideCreateComment;
const updateComment = decideUpdateComment;
const deleteComment = decideDeleteComment;
const deleteAttachment = decideDeleteCommentAttachment;

function comment(project: Scenario, id: number): CommentDoc | undefined {
  return project.state.comments.get(id);
}

/** Comments on a new story; returns the story and the comment ids. */
function commented(project: Scenario, command: Omit<CreateCommentCommand, 'story_id'>, actorId = MEMBER) {
  const story = project.story();
  const decision = project.when(createComment, { story_id: story, ...command }, actorId);
  return { story, commentId: decision.data.changes[0]!.id, decision };
}

describe('comments', () => {
  describe('create', () => {
    it('records the whole comment and a touch of the story that makes the writer a follower', () => {
      const project = givenProject();
      const story = project.story();
      const before = project.doc(story);
      const decision = project.when(createComment, { story_id: story, text: 'Looks good' }, MEMBER);
      expect(decision.type).to.equal('comment_create');
      expect(changeKinds(decision)).to.deep.equal(['comment:create', 'story:update']);
      const [created, touch] = decision.data.changes;
      expect(created!.new_values).to.deep.equal({
        id: created!.id,
        story_id: story,
        text: 'Looks good',
        person_id: MEMBER,
        created_at: project.now,
        updated_at: project.now,
        file_attachment_ids: [],
        ext_attachment_ids: [],
        attachment_ids: [],
        file_attachments: [],
        ext_attachments: [],
      });
      expect(touch!.original_values).to.deep.equal({ follower_ids: before.follower_ids, updated_at: before.updated_at });
      expect(touch!.new_values).to.deep.equal({ follower_ids: [MEMBER], updated_at: project.now });
      expect(decision.data.primary_resources).to.deep.equal([
        { kind: 'story', id: story, name: 'A story', story_type: 'feature', story_priority: 'p3' },
      ]);
      expect(comment(project, created!.id), 'nested files are derived, not stored').to.not.have.property('file_attachments');
    });

    it('only touches the story when the writer already follows it', () => {
      const project = givenProject();
      const story = project.story({ follower_ids: [OWNER] });
      const decision = project.when(createComment, { story_id: story, text: 'mine' }, OWNER);
      expect(decision.data.changes[1]!.new_values).to.deep.equal({ updated_at: project.now });
    });

    it('refuses a comment with neither text nor attachments, blank text included', () => {
      const project = givenProject();
      const story = project.story();
      expect(problemsOf(project.rejected(createComment, { story_id: story }))).to.have.key('text');
      expect(problemsOf(project.rejected(createComment, { story_id: story, text: '  \n' }))).to.have.key('text');
      const long = project.rejected(createComment, { story_id: story, text: 'x'.repeat(20_001) });
      expect(problemsOf(long).text).to.equal("'text' parameter must be 20000 characters or less.");
    });

    it('attaches uploaded files by id: the change nests them, the file records its comment', () => {
      const project = givenProject();
      const file = upload(project, 'plan.pdf');
      const { commentId, decision } = commented(project, { file_attachment_ids: [file] });
      expect(changeKinds(decision)).to.deep.equal(['comment:create', 'file_attachment:update', 'story:update']);
      const values = decision.data.changes[0]!.new_values!;
      expect(values).to.not.have.property('text');
      expect(values.file_attachment_ids).to.deep.equal([file]);
      expect(values.attachment_ids).to.deep.equal([file]);
      expect(values.file_attachments).to.deep.equal([{ ...fileDoc(project, file) }]);
      expect(fileDoc(project, file)).to.deep.include({ comment_id: commentId, filename: 'plan.pdf', content_hash: contentHash(1) });
    });

    it('refuses unknown files and files another comment holds', () => {
      const project = givenProject();
      const story = project.story();
      expect(problemsOf(project.rejected(createComment, { story_id: story, file_attachment_ids: [424242] }))).to.have.key(
        'file_attachments',
      );
      const file = upload(project);
      project.when(createComment, { story_id: story, file_attachment_ids: [file] });
      const taken = problemsOf(project.rejected(createComment, { story_id: story, file_attachment_ids: [file] }));
      expect(taken.file_attachments).to.equal(`File attachment ${file} is already attached to another comment.`);
    });

    it('stores ext attachments on the comment with ids of their own, after the files in attachment_ids', () => {
      const project = givenProject();
      const file = upload(project);
      const { commentId } = commented(project, {
        text: 'see',
        file_attachment_ids: [file],
        ext_attachments: [{ title: 'Spec', alternate_link: 'https://docs.example/spec' }],
      });
      const stored = comment(project, commentId)!;
      const [ext] = stored.ext_attachments;
      expect(ext).to.deep.include({ kind: 'ext_attachment', title: 'Spec', alternate_link: 'https://docs.example/spec' });
      expect(stored.ext_attachment_ids).to.deep.equal([ext!.id]);
      expect(stored.attachment_ids).to.deep.equal([file, ext!.id]);
      const story = project.story();
      const untitled = project.rejected(createComment, { story_id: story, ext_attachments: [{ title: '' }] });
      expect(problemsOf(untitled)).to.have.key('ext_attachments');
      const unknownKey = project.rejected(createComment, {
        story_id: story,
        ext_attachments: [{ title: 'T', size: '3' } as unknown as { title: string }],
      });
      expect(problemsOf(unknownKey).ext_attachments).to.equal('An ext attachment has no attribute "size".');
    });

    it('writes in the caller name; an owner may name another member, others may not', () => {
      const project = givenProject();
      const story = project.story();
      const byOwner = project.when(createComment, { story_id: story, text: 'for bob', person_id: MEMBER }, OWNER);
      expect(byOwner.data.changes[0]!.new_values!.person_id).to.equal(MEMBER);
      expect(project.rejected(createComment, { story_id: story, text: 'x', person_id: OWNER }, MEMBER).code).to.equal(
        'unauthorized_operation',
      );
      expect(problemsOf(project.rejected(createComment, { story_id: story, text: 'x', person_id: STRANGER }, OWNER))).to.have.key(
        'person_id',
      );
    });

    it('records mentioned members (not viewers, not strangers) and makes them followers', () => {
      const project = givenProject();
      const story = project.story();
      const decision = project.when(
        createComment,
        {
          story_id: story,
          text: '@Bob and @vera, @nobody: have a look (@bob again)',
          mentioned_people: [
            { username: 'bob', person_id: MEMBER },
            { username: 'vera', person_id: VIEWER },
            { username: 'nobody', person_id: STRANGER },
          ],
        },
        OWNER,
      );
      expect(decision.data.changes[0]!.new_values!.mentioned_person_ids).to.deep.equal([MEMBER]);
      expect(project.doc(story).follower_ids).to.deep.equal([OWNER, MEMBER]);
    });

    it('finds mentions as Tracker wrote them', () => {
      expect(mentionedUsernames('@bob, @Ann.Lee. mail x@y.com @ nobody @bob')).to.deep.equal(['bob', 'ann.lee']);
    });

    it('takes a past writing time for imports, within the bounds of a story creation time', () => {
      const project = givenProject();
      const written = Date.UTC(2019, 4, 1);
      const { commentId } = commented(project, { text: 'old', created_at: written });
      expect(comment(project, commentId)).to.deep.include({ created_at: written, updated_at: written });
      const story = project.story();
      const future = project.rejected(createComment, { story_id: story, text: 'x', created_at: project.now + 86_400_000 });
      expect(problemsOf(future)).to.have.key('created_at');
    });

    it('keeps commit identifiers and types', () => {
      const project = givenProject();
      const { commentId } = commented(project, { text: 'Fixed', commit_identifier: 'abc123', commit_type: 'github' });
      expect(comment(project, commentId)).to.deep.include({ commit_identifier: 'abc123', commit_type: 'github' });
    });

    it('comments on an epic: the epic gets the follower and is the primary resource', () => {
      const project = givenProject();
      const epic = project.when(decideCreateEpic, { name: 'Launch' }).data.changes[0]!.id;
      const decision = project.when(createComment, { epic_id: epic, text: 'Plan' }, MEMBER);
      expect(changeKinds(decision)).to.deep.equal(['comment:create', 'epic:update']);
      expect(decision.data.changes[0]!.new_values).to.deep.include({ epic_id: epic }).and.not.have.property('story_id');
      expect(decision.data.primary_resources).to.deep.equal([{ kind: 'epic', id: epic, name: 'Launch' }]);
      expect(project.state.epics.get(epic)!.follower_ids).to.deep.equal([MEMBER]);
    });

    it('answers unfound for a story or epic that does not exist', () => {
      const project = givenProject();
      expect(project.rejected(createComment, { story_id: 5555, text: 'x' }).code).to.equal('unfound_resource');
      expect(project.rejected(createComment, { epic_id: 5555, text: 'x' }).code).to.equal('unfound_resource');
    });
  });

  describe('update', () => {
    it('refuses an empty PUT with the real service message', () => {
      const project = givenProject();
      const { story, commentId } = commented(project, { text: 'one' });
      const error = project.rejected(updateComment, { story_id: story, comment_id: commentId }, MEMBER);
      expect(error.code).to.equal('invalid_parameter');
      expect(error.details.general_problem).to.equal(
        'this endpoint requires at least one of the following parameters: attachment_ids_to_remove, attachments_to_add, ' +
          'ext_attachment_ids_to_remove, file_attachment_ids_to_add, file_attachment_ids_to_remove, text',
      );
    });

    it('lets only the writer edit; records the changed text and a touch of the story', () => {
      const project = givenProject();
      const { story, commentId } = commented(project, { text: 'one' });
      expect(project.rejected(updateComment, { story_id: story, comment_id: commentId, text: 'x' }, OWNER).code).to.equal(
        'unauthorized_operation',
      );
      const decision = project.when(updateComment, { story_id: story, comment_id: commentId, text: 'two' }, MEMBER);
      expect(decision.type).to.equal('comment_update');
      expect(changeKinds(decision)).to.deep.equal(['comment:update', 'story:update']);
      expect(decision.data.changes[0]!.original_values).to.deep.include({ text: 'one' });
      expect(decision.data.changes[0]!.new_values).to.deep.equal({ text: 'two', updated_at: project.now });
    });

    it('adds and removes files; a removed file loses its metadata', () => {
      const project = givenProject();
      const first = upload(project, 'a.png', MEMBER, 1);
      const second = upload(project, 'b.png', MEMBER, 2);
      const { story, commentId } = commented(project, { text: 'files', file_attachment_ids: [first] });
      const decision = project.when(
        updateComment,
        { story_id: story, comment_id: commentId, file_attachment_ids_to_add: [second], file_attachment_ids_to_remove: [first] },
        MEMBER,
      );
      expect(changeKinds(decision)).to.deep.equal(['comment:update', 'file_attachment:update', 'file_attachment:delete', 'story:update']);
      expect(comment(project, commentId)).to.deep.include({ file_attachment_ids: [second], attachment_ids: [second] });
      expect(fileDoc(project, first)).to.equal(undefined);
      expect(fileDoc(project, second)!.comment_id).to.equal(commentId);
    });

    it('adds attachments by object and removes any kind by attachment id', () => {
      const project = givenProject();
      const file = upload(project, 'a.png', MEMBER);
      const { story, commentId } = commented(project, { text: 'x' });
      project.when(
        updateComment,
        { story_id: story, comment_id: commentId, attachments_to_add: [{ id: file }, { title: 'Doc' }] },
        MEMBER,
      );
      const added = comment(project, commentId)!;
      const extId = added.ext_attachment_ids[0]!;
      expect(added.attachment_ids).to.deep.equal([file, extId]);
      project.when(updateComment, { story_id: story, comment_id: commentId, attachment_ids_to_remove: [extId, file] }, MEMBER);
      expect(comment(project, commentId)).to.deep.include({ attachment_ids: [], ext_attachments: [] });
    });

    it('refuses removing what the comment does not hold, and leaving it empty', () => {
      const project = givenProject();
      const file = upload(project, 'a.png', MEMBER);
      const { story, commentId } = commented(project, { file_attachment_ids: [file] });
      const stranger = project.rejected(updateComment, { story_id: story, comment_id: commentId, ext_attachment_ids_to_remove: [9] }, MEMBER);
      expect(problemsOf(stranger)).to.have.key('ext_attachment_ids_to_remove');
      const empty = project.rejected(updateComment, { story_id: story, comment_id: commentId, file_attachment_ids_to_remove: [file] }, MEMBER);
      expect(problemsOf(empty)).to.have.key('text');
    });

    it('answers unfound for a comment reached through another story', () => {
      const project = givenProject();
      const { commentId } = commented(project, { text: 'x' });
      const other = project.story();
      expect(project.rejected(updateComment, { story_id: other, comment_id: commentId, text: 'y' }, MEMBER).code).to.equal(
        'unfound_resource',
      );
    });
  });

  describe('delete', () => {
    it('deletes the comment and its files metadata; the writer or an owner may', () => {
      const project = givenProject();
      const file = upload(project, 'a.png', MEMBER);
      const { story, commentId } = commented(project, { text: 'bye', file_attachment_ids: [file] });
      expect(project.rejected(deleteComment, { story_id: story, comment_id: commentId }, VIEWER).code).to.equal('unauthorized_operation');
      const decision = project.when(deleteComment, { story_id: story, comment_id: commentId }, OWNER);
      expect(decision.type).to.equal('comment_delete');
      expect(changeKinds(decision)).to.deep.equal(['comment:delete', 'file_attachment:delete', 'story:update']);
      expect(comment(project, commentId)).to.equal(undefined);
      expect(fileDoc(project, file)).to.equal(undefined);
    });

    it('deletes one attachment through its own path; unfound when the comment does not hold it', () => {
      const project = givenProject();
      const file = upload(project, 'a.png', MEMBER);
      const { story, commentId } = commented(project, { text: 'x', file_attachment_ids: [file], ext_attachments: [{ title: 'T' }] });
      const extId = comment(project, commentId)!.ext_attachment_ids[0]!;
      expect(project.rejected(deleteAttachment, { story_id: story, comment_id: commentId, file_attachment_id: 999 }, MEMBER).code).to.equal(
        'unfound_resource',
      );
      project.when(deleteAttachment, { story_id: story, comment_id: commentId, ext_attachment_id: extId }, MEMBER);
      project.when(deleteAttachment, { story_id: story, comment_id: commentId, file_attachment_id: file }, MEMBER);
      expect(comment(project, commentId)).to.deep.include({ attachment_ids: [], text: 'x' });
      expect(fileDoc(project, file)).to.equal(undefined);
    });

    it('goes with its story, files included', () => {
      const project = givenProject();
      const file = upload(project, 'a.png', MEMBER);
      const { story, commentId } = commented(project, { text: 'x', file_attachment_ids: [file] });
      const decision = project.when(decideDeleteStory, { story_id: story });
      expect(changeKinds(decision)).to.include.members(['story:delete', 'comment:delete', 'file_attachment:delete']);
      expect(comment(project, commentId)).to.equal(undefined);
      expect(fileDoc(project, file)).to.equal(undefined);
    });
  });

  describe('with a rejection', () => {
    it('carries the uploaded files, in the story_update event', () => {
      const project = givenProject();
      const file = upload(project, 'screenshot.png', MEMBER);
      const story = project.story({ estimate: 1, current_state: 'delivered' });
      const decision = project.when(
        decideUpdateStory,
        { story_id: story, current_state: 'rejected', comment: { file_attachments: [{ id: file }] } },
        MEMBER,
      );
      expect(changeKinds(decision)).to.deep.equal(['story:update', 'comment:create', 'file_attachment:update']);
      expect(decision.data.changes[1]!.new_values).to.deep.include({ story_id: story, person_id: MEMBER, file_attachment_ids: [file] });
      expect(fileDoc(project, file)!.comment_id).to.equal(decision.data.changes[1]!.id);
      expect(project.doc(story).follower_ids).to.include(MEMBER);
    });
  });

  describe('nested in a story create', () => {
    it('creates the comments in the story_create event, their writers following the story', () => {
      const project = givenProject();
      const file = upload(project, 'a.png', OWNER);
      const decision = project.when(decideCreateStory, {
        name: 'With comments',
        comments: [{ text: 'first' }, { person_id: MEMBER, file_attachment_ids: [file] }],
      });
      expect(decision.type).to.equal('story_create');
      const story = decision.data.changes[0]!;
      expect(story.new_values!.follower_ids).to.deep.equal([OWNER, MEMBER]);
      expect(changeKinds(decision)).to.deep.equal(['story:create', 'comment:create', 'comment:create', 'file_attachment:update']);
      const [, first, second] = decision.data.changes;
      expect(first!.new_values).to.deep.include({ story_id: story.id, text: 'first', person_id: OWNER });
      expect(second!.new_values).to.deep.include({ story_id: story.id, person_id: MEMBER, file_attachment_ids: [file] });
      expect(fileDoc(project, file)!.comment_id).to.equal(second!.id);
    });

    it('refuses a nested comment without text or attachments, naming comments', () => {
      const project = givenProject();
      const error = project.rejected(decideCreateStory, { name: 'x', comments: [{ text: '' }] });
      expect(problemsOf(error)).to.have.key('comments');
    });
  });
});
