import { expect } from 'chai';
import { activitySubjects } from '../../../src/domain/activity/activity-subjects.js';
import { ACTIVITY_BY_PERFORMER, performerActivityProjection } from '../../../src/projections/activity/performer-activity-projection.js';
import { ACTIVITY_BY_RESOURCE, subjectActivityProjection } from '../../../src/projections/activity/subject-activity-projection.js';
import { ALICE, FEATURE, OCCURRED_AT, PROJECT_ID, projectEvent, storyChange } from './activity-events.fixture.js';

describe('activity index projections', () => {
  describe('performer index', () => {
    it('indexes a project event under its performer, keyed by global position', () => {
      const event = projectEvent('story_update', { changes: [storyChange('update')] });
      const writes = performerActivityProjection.apply(event);
      expect(writes).to.deep.equal([
        {
          collection: ACTIVITY_BY_PERFORMER,
          ops: [
            {
              op: 'insert',
              doc: { id: 340, person_id: ALICE.id, project_id: PROJECT_ID, version: 12, occurred_at: OCCURRED_AT },
            },
          ],
        },
      ]);
      expect(performerActivityProjection.apply(event)).to.deep.equal(writes, 'applying twice writes the same');
      expect(performerActivityProjection.collections).to.deep.equal([
        { name: ACTIVITY_BY_PERFORMER, indexes: [{ field: 'person_id' }] },
      ]);
    });

    it('skips events of other streams and events without a performer', () => {
      expect(performerActivityProjection.apply(projectEvent('person_update', { changes: [] }, { stream: 'person-7' }))).to.deep.equal([]);
      const system = projectEvent('project_update', { changes: [] });
      system.meta.performed_by = null;
      expect(performerActivityProjection.apply(system)).to.deep.equal([]);
    });
  });

  describe('story and epic index', () => {
    it('finds the stories and epics an event belongs to through changes, parents and primary resources', () => {
      const subjects = activitySubjects({
        changes: [
          { kind: 'comment', change_type: 'create', id: 30, new_values: { story_id: 555 } },
          { kind: 'comment', change_type: 'delete', id: 31, original_values: { epic_id: 4 } },
          { kind: 'task', change_type: 'update', id: 40, new_values: { complete: true } },
          storyChange('update'),
          { kind: 'label', change_type: 'update', id: 8 },
        ],
        primary_resources: [{ kind: 'story', id: 600 }, { kind: 'person', id: 7 }],
      });
      expect(subjects).to.deep.equal([
        { kind: 'story', id: 555 },
        { kind: 'epic', id: 4 },
        { kind: 'story', id: 600 },
      ]);
    });

    it('writes one entry per event with the subject keys, and nothing for events without subjects', () => {
      const event = projectEvent('story_update', { changes: [storyChange('update')], primary_resources: [FEATURE] });
      const writes = subjectActivityProjection.apply(event);
      expect(writes).to.deep.equal([
        {
          collection: ACTIVITY_BY_RESOURCE,
          ops: [
            {
              op: 'insert',
              doc: { id: 340, subjects: ['story-555'], project_id: PROJECT_ID, version: 12, occurred_at: OCCURRED_AT },
            },
          ],
        },
      ]);
      expect(subjectActivityProjection.apply(event)).to.deep.equal(writes, 'applying twice writes the same');
      expect(subjectActivityProjection.apply(projectEvent('project_update', { changes: [] }))).to.deep.equal([]);
    });
  });
});
