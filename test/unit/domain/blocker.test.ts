import { expect } from 'chai';
import { decideCreateBlocker } from '../../../src/domain/blocker/create-blocker.js';
import { decideDeleteBlocker } from '../../../src/domain/blocker/delete-blocker.js';
import { decideUpdateBlocker } from '../../../src/domain/blocker/update-blocker.js';
import type { BlockerDoc } from '../../../src/domain/blocker/blocker-changes.js';
import { decideCreateStory } from '../../../src/domain/story/create-story.js';
import { decideDeleteStory } from '../../../src/domain/story/delete-story.js';
import { changeKinds } from './conversation-scenario.js';
import { givenProject, MEMBER, problemsOf } from './decider-scenario.js';
import type { Scenario } from './decider-scenario.js';

const createBlocker = decideCreateBlocker;
const updateBlocker = decideUpdateBlocker;
const deleteBlocker = decideDeleteBlocker;

function blocker(project: Scenario, id: number): BlockerDoc | undefined {
  return project.state.blockers.get(id);
}

describe('blockers', () => {
  it('creates a blocker with a touch of the blocked story', () => {
    const project = givenProject();
    const story = project.story();
    const decision = project.when(createBlocker, { story_id: story, description: 'waiting for legal' }, MEMBER);
    expect(decision.type).to.equal('blocker_create');
    expect(changeKinds(decision)).to.deep.equal(['blocker:create', 'story:update']);
    const [created, touch] = decision.data.changes;
    expect(created).to.deep.include({ kind: 'blocker', name: 'waiting for legal' });
    expect(created!.new_values).to.deep.equal({
      id: created!.id,
      story_id: story,
      person_id: MEMBER,
      description: 'waiting for legal',
      resolved: false,
      created_at: project.now,
      updated_at: project.now,
    });
    expect(touch!.new_values).to.deep.equal({ updated_at: project.now });
    expect(decision.data.primary_resources[0]).to.deep.include({ kind: 'story', id: story });
  });

  it('lists the blocked story on the story a blocker names while it is unresolved', () => {
    const project = givenProject();
    const blocking = project.story({ name: 'API first' });
    const blocked = project.story({ name: 'UI' });
    const created = project.when(createBlocker, { story_id: blocked, description: `needs #${blocking}` });
    expect(changeKinds(created)).to.deep.equal(['blocker:create', 'story:update', 'story:update']);
    expect(created.data.changes[1]).to.deep.include({
      id: blocking,
      original_values: { blocked_story_ids: [], updated_at: project.doc(blocking).created_at },
    });
    expect(project.doc(blocking).blocked_story_ids).to.deep.equal([blocked]);
    const id = created.data.changes[0]!.id;

    const resolved = project.when(updateBlocker, { story_id: blocked, blocker_id: id, resolved: true });
    expect(resolved.type).to.equal('blocker_update');
    expect(resolved.data.changes[0]!.new_values).to.deep.equal({ resolved: true, updated_at: project.now });
    expect(project.doc(blocking).blocked_story_ids).to.deep.equal([]);

    project.when(updateBlocker, { story_id: blocked, blocker_id: id, resolved: false });
    expect(project.doc(blocking).blocked_story_ids).to.deep.equal([blocked]);
    project.when(deleteBlocker, { story_id: blocked, blocker_id: id });
    expect(project.doc(blocking).blocked_story_ids).to.deep.equal([]);
    expect(blocker(project, id)).to.equal(undefined);
  });

  it('keeps a story listed while another of its blockers still names the blocking story', () => {
    const project = givenProject();
    const blocking = project.story();
    const blocked = project.story();
    const first = project.when(createBlocker, { story_id: blocked, description: `#${blocking}` }).data.changes[0]!.id;
    const second = project.when(createBlocker, { story_id: blocked, description: `also #${blocking}` });
    expect(changeKinds(second), 'no recount when nothing changes').to.deep.equal(['blocker:create', 'story:update']);
    project.when(deleteBlocker, { story_id: blocked, blocker_id: first });
    expect(project.doc(blocking).blocked_story_ids).to.deep.equal([blocked]);
  });

  it('moves the listing when the description names another story', () => {
    const project = givenProject();
    const a = project.story();
    const b = project.story();
    const blocked = project.story();
    const id = project.when(createBlocker, { story_id: blocked, description: `#${a}` }).data.changes[0]!.id;
    project.when(updateBlocker, { story_id: blocked, blocker_id: id, description: `#${b} now` });
    expect(project.doc(a).blocked_story_ids).to.deep.equal([]);
    expect(project.doc(b).blocked_story_ids).to.deep.equal([blocked]);
  });

  it('refuses blank or long descriptions and non-boolean resolved', () => {
    const project = givenProject();
    const story = project.story();
    expect(problemsOf(project.rejected(createBlocker, { story_id: story, description: ' ' }))).to.have.key('description');
    expect(problemsOf(project.rejected(createBlocker, { story_id: story, description: 'x'.repeat(1001) }))).to.have.key('description');
    const id = project.when(createBlocker, { story_id: story, description: 'ok' }).data.changes[0]!.id;
    const bad = project.rejected(updateBlocker, { story_id: story, blocker_id: id, resolved: 'yes' as unknown as boolean });
    expect(problemsOf(bad)).to.have.key('resolved');
  });

  it('answers unfound for a blocker reached through another story', () => {
    const project = givenProject();
    const story = project.story();
    const other = project.story();
    const id = project.when(createBlocker, { story_id: story, description: 'x' }).data.changes[0]!.id;
    expect(project.rejected(deleteBlocker, { story_id: other, blocker_id: id }).code).to.equal('unfound_resource');
  });

  it('creates nested blockers with the story, in the same event', () => {
    const project = givenProject();
    const blocking = project.story();
    const decision = project.when(decideCreateStory, {
      name: 'Blocked from the start',
      blockers: [{ description: `#${blocking}` }, { description: 'design review', resolved: true }],
    });
    expect(changeKinds(decision)).to.deep.equal(['story:create', 'blocker:create', 'blocker:create', 'story:update']);
    const story = decision.data.changes[0]!.id;
    expect(project.doc(blocking).blocked_story_ids).to.deep.equal([story]);
    expect(problemsOf(project.rejected(decideCreateStory, { name: 'x', blockers: [{ description: '' }] }))).to.have.key('blockers');
  });

  it('goes with its story, and the story it named no longer lists it', () => {
    const project = givenProject();
    const blocking = project.story();
    const blocked = project.story();
    const id = project.when(createBlocker, { story_id: blocked, description: `#${blocking}` }).data.changes[0]!.id;
    const decision = project.when(decideDeleteStory, { story_id: blocked });
    expect(changeKinds(decision)).to.include.members(['story:delete', 'blocker:delete', 'story:update']);
    expect(decision.data.changes.find((change) => change.kind === 'blocker')!.name).to.equal(`#${blocking}`);
    expect(blocker(project, id)).to.equal(undefined);
    expect(project.doc(blocking).blocked_story_ids).to.deep.equal([]);
  });
});
