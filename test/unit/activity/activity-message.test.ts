import { expect } from 'chai';
import { renderActivity } from '../../../src/domain/activity/render-activity.js';
import type { RecordedEvent, ResourceChange } from '../../../src/domain/events.js';
import { FEATURE, context, projectEvent, storyChange, storyUpdate } from './activity-events.fixture.js';

function headline(event: RecordedEvent): { message: string; highlight: string } {
  const doc = renderActivity(event, context());
  if (!doc) throw new Error('expected an activity');
  return { message: doc.message, highlight: doc.highlight };
}

function storyScoped(type: string, change: ResourceChange): RecordedEvent {
  return projectEvent(type, {
    changes: [change, storyChange('update', { original: { updated_at: 1 }, next: { updated_at: 2 } })],
    primary_resources: [FEATURE],
  });
}

describe('activity messages', () => {
  describe('stories', () => {
    it('reads a create as "added this <story type>"', () => {
      const event = projectEvent('story_create', {
        changes: [storyChange('create', { next: { name: 'Launch' }, storyType: 'bug' })],
        primary_resources: [{ ...FEATURE, story_type: 'bug' }],
      });
      expect(headline(event)).to.deep.equal({ message: 'Alice Adams added this bug', highlight: 'added' });
    });

    for (const state of ['started', 'finished', 'delivered', 'accepted', 'rejected', 'unstarted']) {
      it(`reads a change to ${state} with the state verb`, () => {
        expect(headline(storyUpdate({ current_state: 'x' }, { current_state: state }))).to.deep.equal({
          message: `Alice Adams ${state} this feature`,
          highlight: state,
        });
      });
    }

    it('reads rejected -> started as restarted', () => {
      expect(headline(storyUpdate({ current_state: 'rejected' }, { current_state: 'started' })).highlight).to.equal('restarted');
    });

    it('reads estimates in points, singular for one', () => {
      expect(headline(storyUpdate({ estimate: null }, { estimate: 3 })).message).to.equal(
        'Alice Adams estimated this feature as 3 points',
      );
      expect(headline(storyUpdate({ estimate: 3 }, { estimate: 1 })).message).to.equal(
        'Alice Adams estimated this feature as 1 point',
      );
      expect(headline(storyUpdate({ estimate: 3 }, { estimate: 0 })).message).to.equal(
        'Alice Adams estimated this feature as 0 points',
      );
      expect(headline(storyUpdate({ estimate: 2 }, { estimate: null }))).to.deep.equal({
        message: 'Alice Adams unestimated this feature',
        highlight: 'unestimated',
      });
    });

    it('prefers the state verb when state and estimate change together', () => {
      expect(headline(storyUpdate({ current_state: 'unstarted', estimate: null }, { current_state: 'started', estimate: 2 })).message)
        .to.equal('Alice Adams started this feature');
    });

    it('reads other edits as "edited this <story type>"', () => {
      expect(headline(storyUpdate({ name: 'a', labels: [] }, { name: 'b', labels: ['x'] }, 'bug'))).to.deep.equal({
        message: 'Alice Adams edited this bug',
        highlight: 'edited',
      });
    });

    it('reads deletes and moves of one story and of several', () => {
      const one = projectEvent('story_delete', {
        changes: [storyChange('delete', { original: { name: 'Launch' } })],
        primary_resources: [FEATURE],
      });
      expect(headline(one).message).to.equal('Alice Adams deleted this feature');
      const move = projectEvent('story_move', {
        changes: [storyChange('update', { original: { before_id: 1 }, next: { before_id: 2 } })],
        primary_resources: [FEATURE],
      });
      expect(headline(move).message).to.equal('Alice Adams moved this feature');
      const several = projectEvent('story_move', {
        changes: [storyChange('update'), { ...storyChange('update'), id: 556 }],
        primary_resources: [FEATURE, { ...FEATURE, id: 556 }],
      });
      expect(headline(several).message).to.equal('Alice Adams moved 2 stories');
    });

    it('reads moves between projects, naming the other project when the event does', () => {
      const into = projectEvent('story_move_into_project', {
        changes: [storyChange('update', { original: { project_id: 1 }, next: { project_id: 99 } })],
        primary_resources: [FEATURE],
        secondary_resources: [{ kind: 'project', id: 1, name: 'Old home' }],
      });
      expect(headline(into)).to.deep.equal({
        message: 'Alice Adams moved this feature into this project from project "Old home"',
        highlight: 'moved',
      });
      const from = projectEvent('story_move_from_project', {
        changes: [storyChange('update', { original: { project_id: 99 }, next: { project_id: 2 } })],
        primary_resources: [FEATURE],
      });
      expect(headline(from).message).to.equal('Alice Adams moved this feature from this project');
    });
  });

  describe('comments and tasks', () => {
    it('quotes comment text', () => {
      const event = storyScoped('comment_create', {
        kind: 'comment', change_type: 'create', id: 30, new_values: { id: 30, story_id: FEATURE.id, text: 'Needs a retry' },
      });
      expect(headline(event)).to.deep.equal({ message: 'Alice Adams added comment: "Needs a retry"', highlight: 'added comment:' });
    });

    it('reads a comment without text as a comment added to the story', () => {
      const event = storyScoped('comment_create', {
        kind: 'comment', change_type: 'create', id: 30, new_values: { id: 30, story_id: FEATURE.id, text: null },
      });
      expect(headline(event).message).to.equal('Alice Adams added a comment to this feature');
    });

    it('reads comment edits and deletes', () => {
      expect(headline(storyScoped('comment_update', {
        kind: 'comment', change_type: 'update', id: 30, original_values: { text: 'a' }, new_values: { text: 'b' },
      })).message).to.equal('Alice Adams edited this comment');
      expect(headline(storyScoped('comment_delete', {
        kind: 'comment', change_type: 'delete', id: 30, original_values: { text: 'gone' },
      })).message).to.equal('Alice Adams deleted comment: "gone"');
    });

    it('reads task creation, rewriting, completion and deletion', () => {
      expect(headline(storyScoped('task_create', {
        kind: 'task', change_type: 'create', id: 40, new_values: { description: 'Write docs', complete: false },
      })).message).to.equal('Alice Adams added task: "Write docs"');
      expect(headline(storyScoped('task_update', {
        kind: 'task', change_type: 'update', id: 40, original_values: { description: 'Write docs' }, new_values: { description: 'Write more docs' },
      }))).to.deep.equal({ message: 'Alice Adams rewrote task: "Write more docs"', highlight: 'rewrote task:' });
      expect(headline(storyScoped('task_update', {
        kind: 'task', change_type: 'update', id: 40, name: 'Write docs', original_values: { complete: false }, new_values: { complete: true },
      })).message).to.equal('Alice Adams completed task: "Write docs"');
      expect(headline(storyScoped('task_update', {
        kind: 'task', change_type: 'update', id: 40, original_values: { complete: true }, new_values: { complete: false },
      })).message).to.equal('Alice Adams uncompleted a task');
      expect(headline(storyScoped('task_delete', {
        kind: 'task', change_type: 'delete', id: 40, original_values: { description: 'Write docs' },
      })).message).to.equal('Alice Adams deleted task: "Write docs"');
    });
  });

  describe('labels, epics, projects, memberships, iterations', () => {
    it('quotes label names and reads renames', () => {
      const label = (type: string, change: Partial<ResourceChange>): RecordedEvent =>
        projectEvent(type, { changes: [{ kind: 'label', change_type: 'update', id: 8, ...change }] });
      expect(headline(label('label_create', { change_type: 'create', name: 'ui', new_values: { name: 'ui' } })))
        .to.deep.equal({ message: 'Alice Adams added label "ui"', highlight: 'added label' });
      expect(headline(label('label_update', { name: 'ux', original_values: { name: 'ui' }, new_values: { name: 'ux' } })).message)
        .to.equal('Alice Adams renamed label "ui" to "ux"');
      expect(headline(label('label_delete', { change_type: 'delete', name: 'ux', original_values: { name: 'ux' } })).message)
        .to.equal('Alice Adams deleted label "ux"');
    });

    it('reads epic and project changes', () => {
      const epic = projectEvent('epic_create', { changes: [{ kind: 'epic', change_type: 'create', id: 4, name: 'Billing' }] });
      expect(headline(epic).message).to.equal('Alice Adams added this epic');
      const project = projectEvent('project_update', {
        changes: [{ kind: 'project', change_type: 'update', id: 99, original_values: { name: 'A' }, new_values: { name: 'B' } }],
      });
      expect(headline(project)).to.deep.equal({ message: 'Alice Adams edited this project', highlight: 'edited' });
    });

    it('reads membership changes with the member name and role', () => {
      const membership = (type: string, change: Partial<ResourceChange>): RecordedEvent =>
        projectEvent(type, {
          changes: [{ kind: 'project_membership', change_type: 'update', id: 61, ...change }],
          primary_resources: [{ kind: 'person', id: 8, name: 'Bob Brown' }],
        });
      expect(headline(membership('project_membership_create', { change_type: 'create', new_values: { person_id: 8, role: 'owner' } })))
        .to.deep.equal({ message: 'Alice Adams added Bob Brown to this project as an owner', highlight: 'added' });
      expect(headline(membership('project_membership_update', { original_values: { role: 'owner' }, new_values: { role: 'viewer' } })).message)
        .to.equal('Alice Adams changed the role of Bob Brown to viewer');
      expect(headline(membership('project_membership_delete', { change_type: 'delete' })).message)
        .to.equal('Alice Adams removed Bob Brown from this project');
    });

    it('reads iteration overrides', () => {
      const override = (original: Record<string, unknown>, next: Record<string, unknown>): RecordedEvent =>
        projectEvent('iteration_update', {
          changes: [{ kind: 'iteration_override', change_type: 'update', id: 5, original_values: original, new_values: next }],
        });
      expect(headline(override({ length: 'default' }, { length: 2 }))).to.deep.equal({
        message: 'Alice Adams changed iteration 5 length from default to 2 weeks',
        highlight: 'changed',
      });
      expect(headline(override({ length: 2, team_strength: 1 }, { length: null, team_strength: 0.5 })).message).to.equal(
        'Alice Adams changed iteration 5 length from 2 weeks to default and team strength from 100% to 50%',
      );
    });
  });
});
