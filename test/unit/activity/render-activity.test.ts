import { expect } from 'chai';
import fc from 'fast-check';
import { isActivityEvent, renderActivity } from '../../../src/domain/activity/render-activity.js';
import type { ActivityDoc } from '../../../src/domain/activity/activity-doc.js';
import type { RecordedEvent } from '../../../src/domain/events.js';
import { ALICE, FEATURE, OCCURRED_AT, PROJECT_ID, context, projectEvent, storyChange, storyUpdate } from './activity-events.fixture.js';

function render(event: RecordedEvent, ctx = context()): ActivityDoc {
  const doc = renderActivity(event, ctx);
  if (!doc) throw new Error('expected an activity');
  return doc;
}

describe('renderActivity', () => {
  it('renders the whole envelope of a story update', () => {
    const event = storyUpdate(
      { current_state: 'unstarted', accepted_at: null, updated_at: OCCURRED_AT - 1000 },
      { current_state: 'started', updated_at: OCCURRED_AT },
    );
    event.data.changes[0]!.rank = 'a0';
    const doc = render(event);
    expect(doc).to.deep.equal({
      kind: 'story_update_activity',
      guid: `${PROJECT_ID}_12`,
      project_version: 12,
      message: 'Alice Adams started this feature',
      highlight: 'started',
      changes: [
        {
          kind: 'story',
          change_type: 'update',
          id: FEATURE.id,
          name: 'Launch',
          story_type: 'feature',
          story_priority: 'p2',
          original_values: { current_state: 'unstarted', accepted_at: null, updated_at: OCCURRED_AT - 1000 },
          new_values: { current_state: 'started', updated_at: OCCURRED_AT },
        },
      ],
      primary_resources: [
        {
          kind: 'story',
          id: FEATURE.id,
          name: 'Launch',
          story_type: 'feature',
          url: `http://tracker.test/story/show/${FEATURE.id}`,
          story_priority: 'p2',
        },
      ],
      secondary_resources: [],
      project: { kind: 'project', id: PROJECT_ID, name: 'Rocket' },
      performed_by: { kind: 'person', id: ALICE.id, name: ALICE.name, initials: ALICE.initials },
      occurred_at: OCCURRED_AT,
      project_id: PROJECT_ID,
      performed_by_id: ALICE.id,
    });
  });

  it('never renders the internal rank and writes nulls explicitly', () => {
    const event = storyUpdate({ accepted_at: OCCURRED_AT - 5 }, { accepted_at: null, current_state: 'rejected' });
    event.data.changes[0]!.rank = 'zz';
    const json = JSON.stringify(render(event));
    expect(json).not.to.contain('rank');
    expect(json).to.contain('"accepted_at":null');
  });

  it('gives identical JSON when the same event is rendered twice', () => {
    const event = projectEvent('story_create', {
      changes: [storyChange('create', { next: { name: 'Launch', labels: ['ui'], label_ids: [3], owner_ids: [], deadline: null } })],
      primary_resources: [FEATURE],
    });
    const first = JSON.stringify(render(event));
    const second = JSON.stringify(render(event));
    expect(second).to.equal(first);
  });

  it('does not share values with the event (a serializer may rewrite them)', () => {
    const event = storyUpdate({ name: 'Old' }, { name: 'New' });
    const doc = render(event);
    doc.changes[0]!.new_values!['name'] = 'changed downstream';
    expect(event.data.changes[0]!.new_values!['name']).to.equal('New');
  });

  it('gives epics their url and keeps secondary resources', () => {
    const event = projectEvent('epic_update', {
      changes: [{ kind: 'epic', change_type: 'update', id: 4, name: 'Billing', new_values: { name: 'Billing' } }],
      primary_resources: [{ kind: 'epic', id: 4, name: 'Billing' }],
      secondary_resources: [{ kind: 'label', id: 8, name: 'billing' }],
    });
    const doc = render(event);
    expect(doc.primary_resources).to.deep.equal([
      { kind: 'epic', id: 4, name: 'Billing', url: 'http://tracker.test/epic/show/4' },
    ]);
    expect(doc.secondary_resources).to.deep.equal([{ kind: 'label', id: 8, name: 'billing' }]);
  });

  it('names the system as performer of events without one, and an unknown person when not found', () => {
    const system = render(storyUpdate({ name: 'a' }, { name: 'b' }), context({ performer: null }));
    expect(system.performed_by).to.deep.equal({ kind: 'person', id: ALICE.id, name: 'Unknown person', initials: '?' });
    expect(system.message).to.equal('Unknown person edited this feature');

    const event = storyUpdate({ name: 'a' }, { name: 'b' });
    event.meta.performed_by = null;
    const operator = render(event);
    expect(operator.performed_by).to.deep.equal({ kind: 'person', name: 'Storyline', initials: 'SL' });
    expect(operator.performed_by_id).to.equal(null);
  });

  it('uses the performer only when it is the one the event names', () => {
    const doc = render(storyUpdate({ name: 'a' }, { name: 'b' }), context({ performer: { id: 8, name: 'Bob', initials: 'B' } }));
    expect(doc.performed_by.name).to.equal('Unknown person');
  });

  it('is not an activity outside project streams', () => {
    for (const stream of ['person-7', 'account-3', 'ids-story']) {
      const event = projectEvent('person_update', { changes: [] }, { stream });
      expect(isActivityEvent(event)).to.equal(false);
      expect(renderActivity(event, context())).to.equal(null);
    }
  });

  it('renders unknown event types generically', () => {
    const event = projectEvent('pull_request_create', {
      changes: [{ kind: 'pull_request' as never, change_type: 'create', id: 3, new_values: { status: 'open' } }],
      primary_resources: [FEATURE],
    });
    const doc = render(event);
    expect(doc.kind).to.equal('pull_request_create_activity');
    expect(doc.highlight).to.equal('updated');
    expect(doc.message).to.equal('Alice Adams updated this feature');
  });

  it('never throws, always puts the highlight inside the message, and is deterministic', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
    const values = fc.dictionary(
      fc.constantFrom('current_state', 'estimate', 'name', 'text', 'description', 'complete', 'position', 'role',
        'length', 'team_strength', 'number', 'story_id', 'epic_id', 'updated_at'),
      value,
    );
    const kind = fc.constantFrom('story', 'task', 'comment', 'label', 'epic', 'project', 'project_membership',
      'iteration_override', 'person');
    const change = fc.record(
      {
        kind,
        change_type: fc.constantFrom('create', 'update', 'delete'),
        id: fc.integer({ min: 1, max: 1000 }),
        name: fc.string(),
        story_type: fc.constantFrom('feature', 'bug', 'chore', 'release'),
        original_values: values,
        new_values: values,
        rank: fc.string(),
      },
      { requiredKeys: ['kind', 'change_type', 'id'] },
    );
    const ref = fc.record(
      { kind, id: fc.integer({ min: 1, max: 1000 }), name: fc.string(), story_type: fc.string() },
      { requiredKeys: ['kind', 'id'] },
    );
    const type = fc.oneof(
      fc.constantFrom('story_create', 'story_update', 'story_delete', 'story_move', 'story_move_into_project',
        'story_move_from_project', 'comment_create', 'comment_update', 'comment_delete', 'task_create',
        'task_update', 'task_delete', 'label_create', 'label_update', 'label_delete', 'label_merge',
        'epic_create', 'project_update', 'project_membership_create', 'project_membership_update',
        'project_membership_delete', 'iteration_update'),
      fc.string(),
    );
    fc.assert(
      fc.property(type, fc.array(change, { maxLength: 4 }), fc.array(ref, { maxLength: 3 }), fc.array(ref, { maxLength: 2 }),
        (eventType, changes, primary, secondary) => {
          const event = projectEvent(eventType, {
            changes: changes as RecordedEvent['data']['changes'],
            primary_resources: primary,
            secondary_resources: secondary,
          });
          const first = render(event);
          expect(first.message).to.contain(first.highlight);
          expect(first.message.startsWith(ALICE.name)).to.equal(true);
          expect(JSON.stringify(first)).not.to.contain('"rank"');
          expect(JSON.stringify(render(event))).to.equal(JSON.stringify(first));
        }),
      { numRuns: 300 },
    );
  });
});
