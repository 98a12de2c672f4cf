// A commit's stories (commit-message.ts) and its recording in one project (record-commit.ts): the
// bracket syntax, one event for every story named, moves by the story update rules on the state the
// stories before left (two stories finished together keep distinct places), and a commit recorded twice.
import { expect } from 'chai';
import { commitStoryReferences, MAX_COMMIT_STORY_REFERENCES } from '../../../src/domain/source-commit/commit-message.js';
import { decideRecordSourceCommit } from '../../../src/domain/source-commit/record-commit.js';
import { orderedStories } from '../../../src/domain/story/story-order.js';
import { givenProject, MEMBER, OWNER } from './decider-scenario.js';

describe('commit message story references', () => {
  it('reads ids and verbs in brackets, in order of first mention, each story going as far as its furthest verb', () => {
    expect(commitStoryReferences('Fix [#12] and [Finishes #34 #56], [delivers #12], [fixed #7, #8]')).to.deep.equal([
      { story_id: 12, moves_to: 'delivered' },
      { story_id: 34, moves_to: 'finished' },
      { story_id: 56, moves_to: 'finished' },
      { story_id: 7, moves_to: 'finished' },
      { story_id: 8, moves_to: 'finished' },
    ]);
    for (const verb of ['Finishes', 'Finished', 'Fixes', 'Fixed', 'Completes', 'Completed', 'COMPLETED']) {
      expect(commitStoryReferences(`[${verb} #1]`), verb).to.deep.equal([{ story_id: 1, moves_to: 'finished' }]);
    }
    for (const verb of ['Delivers', 'Delivered', 'delivers']) {
      expect(commitStoryReferences(`[${verb} #1]`), verb).to.deep.equal([{ story_id: 1, moves_to: 'delivered' }]);
    }
  });

  it('ignores brackets that are not references: other words, unknown verbs, prototype names, ids outside brackets', () => {
    for (const message of ['#12 fixed', '[WIP]', '[Starts #1]', '[constructor #1]', '[toString #1]', '[#]', '[#0]', '[# 1]', '[#1 text]', '[#99999999999999999999]']) {
      expect(commitStoryReferences(message), message).to.deep.equal([]);
    }
  });

  it('names at most MAX_COMMIT_STORY_REFERENCES stories', () => {
    const message = `[${Array.from({ length: MAX_COMMIT_STORY_REFERENCES + 20 }, (_, i) => `#${i + 1}`).join(' ')}]`;
    expect(commitStoryReferences(message)).to.have.length(MAX_COMMIT_STORY_REFERENCES);
  });
});

describe('recording a commit in a project', () => {
  const commit = { commit_id: 'c0ffee', message: 'the message', author: 'Ada', url: 'https://git.example/c0ffee' };

  it('finishes two stories in one decision at distinct places below the last in progress, each with a comment', () => {
    const project = givenProject();
    const started = project.story({ current_state: 'started', estimate: 1 });
    const a = project.story({ current_state: 'unstarted', estimate: 1 });
    const b = project.story({ current_state: 'unstarted', estimate: 1 });
    const decision = project.when(decideRecordSourceCommit, {
      commit,
      stories: [{ story_id: b, moves_to: 'finished' }, { story_id: a, moves_to: 'finished' }],
    });
    expect(decision.type).to.equal('story_update');
    expect(decision.data.primary_resources.map((ref) => ref.id)).to.deep.equal([b, a]);
    expect(decision.data.changes.filter((change) => change.kind === 'comment').map((change) => change.new_values?.['story_id'])).to.deep.equal([b, a]);
    expect([project.doc(a).current_state, project.doc(b).current_state]).to.deep.equal(['finished', 'finished']);
    expect(project.order()).to.deep.equal([started, b, a]);
    expect(new Set(orderedStories(project.state).map((story) => story.rank)).size).to.equal(3);
    expect(project.doc(a).follower_ids).to.include(OWNER);
  });

  it('leaves a story the rules do not let move where it is, and says why in its comment', () => {
    const project = givenProject();
    const unestimated = project.story({ current_state: 'unstarted' });
    const decision = project.when(decideRecordSourceCommit, { commit, stories: [{ story_id: unestimated, moves_to: 'delivered' }] });
    expect(decision.type).to.equal('comment_create');
    expect(project.doc(unestimated).current_state).to.equal('unstarted');
    const comment = decision.data.changes.find((change) => change.kind === 'comment')!;
    expect(comment.new_values).to.include({
      text: 'Commit by Ada\nhttps://git.example/c0ffee\n\nthe message\n\n(Storyline did not move this story to delivered: Stories in the delivered state must be estimated.)',
      commit_identifier: 'c0ffee',
    });
  });

  it('skips stories it does not hold and those that have the commit already; nothing left is duplicate_entry', () => {
    const project = givenProject();
    const a = project.story();
    project.when(decideRecordSourceCommit, { commit, stories: [{ story_id: a, moves_to: null }, { story_id: 12345, moves_to: 'finished' }] });
    project.rejects(decideRecordSourceCommit, { commit, stories: [{ story_id: a, moves_to: null }] }, 'duplicate_entry');
    const other = project.when(decideRecordSourceCommit, { commit: { ...commit, commit_id: 'other' }, stories: [{ story_id: a, moves_to: null }] });
    expect(other.type).to.equal('comment_create');
  });

  it('writes as the acting person, who need not be the project owner', () => {
    const project = givenProject();
    const a = project.story();
    const decision = project.when(decideRecordSourceCommit, { commit, stories: [{ story_id: a, moves_to: null }] }, MEMBER);
    expect(decision.data.changes.find((change) => change.kind === 'comment')!.new_values).to.include({ person_id: MEMBER });
  });
});
