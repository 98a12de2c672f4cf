import { expect } from 'chai';
import fc from 'fast-check';
import { decideCreateStory } from '../../../src/domain/story/create-story.js';
import { decideDeleteStory } from '../../../src/domain/story/delete-story.js';
import { decideUpdateStory } from '../../../src/domain/story/update-story.js';
import { neighbours, orderedStories } from '../../../src/domain/story/story-order.js';
import type { StoryState } from '../../../src/domain/project-documents.js';
import { DomainError } from '../../../src/domain/errors.js';
import { givenProject, problemsOf } from './decider-scenario.js';
import type { Scenario } from './decider-scenario.js';

/** Every scheduled story above every unscheduled one, and neighbours agreeing with the order. */
function expectOrderInvariants(project: Scenario): void {
  const order = orderedStories(project.state);
  const firstIcebox = order.findIndex((story) => story.current_state === 'unscheduled');
  if (firstIcebox >= 0) {
    expect(order.slice(firstIcebox).every((story) => story.current_state === 'unscheduled'), 'icebox at the bottom').to.equal(true);
  }
  expect(new Set(order.map((story) => story.rank)).size).to.equal(order.length);
  order.forEach((story, i) => {
    expect(neighbours(project.state, story.id)).to.deep.equal({
      after_id: order[i - 1]?.id ?? null,
      before_id: order[i + 1]?.id ?? null,
    });
  });
}

describe('story order', () => {
  it('puts a new story without position at the top of the Icebox, after the last scheduled story', () => {
    const project = givenProject();
    const scheduled = project.story({ current_state: 'unstarted' });
    const oldTop = project.story();
    const decision = project.when(decideCreateStory, { name: 'new' });
    const change = decision.data.changes[0]!;
    expect(change.new_values).to.deep.include({ after_id: scheduled, before_id: oldTop });
    expect(project.order()).to.deep.equal([scheduled, change.id, oldTop]);
  });

  it('moves an Icebox story to the bottom of the Backlog when scheduled, and back to the top of the Icebox', () => {
    const project = givenProject();
    const backlog = project.story({ current_state: 'unstarted' });
    const iceA = project.story();
    const iceB = project.story();
    expect(project.order()).to.deep.equal([backlog, iceB, iceA]);
    const decision = project.when(decideUpdateStory, { story_id: iceA, current_state: 'unstarted' });
    expect(project.order()).to.deep.equal([backlog, iceA, iceB]);
    const change = decision.data.changes[0]!;
    expect(change.original_values).to.deep.include({ after_id: iceB, before_id: null });
    expect(change.new_values).to.deep.include({ after_id: backlog, before_id: iceB });
    expect(change.rank).to.equal(project.doc(iceA).rank);
    project.when(decideUpdateStory, { story_id: backlog, current_state: 'unscheduled' });
    expect(project.order()).to.deep.equal([iceA, backlog, iceB]);
    expectOrderInvariants(project);
  });

  it('moves a started story up below the last in-progress story, and an accepted one below the last accepted', () => {
    const project = givenProject();
    const accepted = project.story({ current_state: 'accepted', estimate: 1 });
    const started = project.story({ current_state: 'started', estimate: 1 });
    const first = project.story({ current_state: 'unstarted', estimate: 1 });
    const second = project.story({ current_state: 'unstarted', estimate: 1 });
    expect(project.order()).to.deep.equal([accepted, started, first, second]);
    project.when(decideUpdateStory, { story_id: second, current_state: 'started' });
    expect(project.order()).to.deep.equal([accepted, started, second, first]);
    project.when(decideUpdateStory, { story_id: second, current_state: 'accepted' });
    expect(project.order()).to.deep.equal([accepted, second, started, first]);
    // A story already high enough stays: finishing the top in-progress story does not move it.
    project.when(decideUpdateStory, { story_id: started, current_state: 'finished' });
    expect(project.order()).to.deep.equal([accepted, second, started, first]);
    expectOrderInvariants(project);
  });

  it('puts a story started straight from the Icebox into Current', () => {
    const project = givenProject();
    const backlog = project.story({ current_state: 'unstarted' });
    const ice = project.story({ estimate: 1 });
    project.when(decideUpdateStory, { story_id: ice, current_state: 'started' });
    expect(project.order()).to.deep.equal([ice, backlog]);
    const only = givenProject();
    const lone = only.story({ estimate: 1 });
    only.when(decideUpdateStory, { story_id: lone, current_state: 'started' });
    expect(only.doc(lone).rank.startsWith('S')).to.equal(true);
  });

  it('places a story directly above before_id or below after_id, as a story_move when nothing else changes', () => {
    const project = givenProject();
    const [a, b, c] = [1, 2, 3].map(() => project.story({ current_state: 'unstarted' }));
    expect(project.order()).to.deep.equal([a, b, c]);
    const moved = project.when(decideUpdateStory, { story_id: c!, before_id: a! });
    expect(moved.type).to.equal('story_move');
    expect(project.order()).to.deep.equal([c, a, b]);
    const change = moved.data.changes[0]!;
    expect(change.original_values).to.deep.equal({ after_id: b, before_id: null, updated_at: project.doc(a!).updated_at + 2000 });
    expect(change.new_values).to.deep.equal({ after_id: null, before_id: a, updated_at: project.now });
    project.when(decideUpdateStory, { story_id: c!, after_id: b! });
    expect(project.order()).to.deep.equal([a, b, c]);
    project.when(decideUpdateStory, { story_id: a!, after_id: b!, before_id: c! });
    expect(project.order()).to.deep.equal([b, a, c]);
  });

  it('rejects positions next to unknown stories or the story itself', () => {
    const project = givenProject();
    const id = project.story();
    expect(problemsOf(project.rejected(decideUpdateStory, { story_id: id, before_id: 4242 }))).to.have.key('before_id');
    expect(problemsOf(project.rejected(decideUpdateStory, { story_id: id, after_id: id }))).to.have.key('after_id');
  });

  it('keeps the Icebox at the bottom: a scheduled story cannot be dropped into it without group', () => {
    const project = givenProject();
    const scheduled = project.story({ current_state: 'unstarted' });
    const iceA = project.story();
    const iceB = project.story();
    expect(problemsOf(project.rejected(decideUpdateStory, { story_id: scheduled, after_id: iceA }))).to.have.key('after_id');
    expect(problemsOf(project.rejected(decideUpdateStory, { story_id: iceA, before_id: scheduled }))).to.have.key('before_id');
    project.when(decideUpdateStory, { story_id: scheduled, after_id: iceB, group: 'unscheduled' });
    expect(project.doc(scheduled).current_state).to.equal('unscheduled');
    expect(project.order()).to.deep.equal([iceB, scheduled, iceA]);
    project.when(decideUpdateStory, { story_id: iceA, before_id: iceB, group: 'scheduled' });
    expect(project.doc(iceA).current_state).to.equal('unstarted');
    expect(project.order()).to.deep.equal([iceA, iceB, scheduled]);
    expectOrderInvariants(project);
  });

  it('checks group: it needs a position and must agree with current_state; current plans by hand when asked', () => {
    const project = givenProject();
    const id = project.story();
    const other = project.story({ current_state: 'unstarted' });
    expect(problemsOf(project.rejected(decideUpdateStory, { story_id: id, group: 'scheduled' }))).to.have.key('group');
    const mismatch = { story_id: id, before_id: other, group: 'unscheduled' as const, current_state: 'unstarted' as const };
    expect(problemsOf(project.rejected(decideUpdateStory, mismatch))).to.have.key('group');
    const manual = givenProject({ automatic_planning: false });
    const ice = manual.story();
    const top = manual.story({ current_state: 'unstarted' });
    manual.when(decideUpdateStory, { story_id: ice, before_id: top, group: 'current' });
    expect(manual.doc(ice).current_state).to.equal('planned');
    expect(manual.order()).to.deep.equal([ice, top]);
  });

  it('writes only the moved story', () => {
    const project = givenProject();
    const ids = [1, 2, 3, 4].map(() => project.story({ current_state: 'unstarted' }));
    const decision = project.when(decideUpdateStory, { story_id: ids[3]!, after_id: ids[0]! });
    expect(decision.data.changes.map((change) => change.id)).to.deep.equal([ids[3]]);
  });

  it('keeps ranks short when many stories are created without a position', () => {
    const project = givenProject();
    for (let i = 0; i < 2000; i++) project.story({ current_state: i % 2 === 0 ? 'unscheduled' : 'unstarted' });
    const longest = Math.max(...orderedStories(project.state).map((story) => story.rank.length));
    expect(longest).to.be.at.most(6);
  });

  it('keeps its invariants under any sequence of creates, state changes, moves and deletes', () => {
    const states: StoryState[] = ['unscheduled', 'unstarted', 'started', 'finished', 'delivered', 'accepted', 'rejected'];
    const operation = fc.oneof(
      fc.record({ op: fc.constant('create' as const), state: fc.constantFrom(...states), near: fc.option(fc.nat()), above: fc.boolean() }),
      fc.record({ op: fc.constant('state' as const), story: fc.nat(), state: fc.constantFrom(...states) }),
      fc.record({ op: fc.constant('move' as const), story: fc.nat(), near: fc.nat(), above: fc.boolean() }),
      fc.record({ op: fc.constant('delete' as const), story: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        const project = givenProject();
        for (const step of operations) {
          const ids = project.order();
          const pick = (n: number) => ids[n % ids.length]!;
          try {
            if (step.op === 'create') {
              const position = step.near === null || ids.length === 0 ? {} : step.above ? { before_id: pick(step.near) } : { after_id: pick(step.near) };
              project.when(decideCreateStory, { name: 's', estimate: 1, current_state: step.state, ...position });
            } else if (ids.length === 0) {
              continue;
            } else if (step.op === 'state') {
              project.when(decideUpdateStory, { story_id: pick(step.story), current_state: step.state });
            } else if (step.op === 'move') {
              const position = step.above ? { before_id: pick(step.near) } : { after_id: pick(step.near) };
              project.when(decideUpdateStory, { story_id: pick(step.story), ...position });
            } else {
              project.when(decideDeleteStory, { story_id: pick(step.story) });
            }
          } catch (error) {
            // Positions across the Icebox boundary and positions next to the story itself are refused.
            if (!(error instanceof DomainError) || error.code !== 'invalid_parameter') throw error;
          }
          expectOrderInvariants(project);
        }
      }),
      { numRuns: 150 },
    );
  });
});
