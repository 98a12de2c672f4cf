import { expect } from 'chai';
import { decideCreateComment } from '../../../src/domain/comment/create-comment.js';
import { decideCreateEpic } from '../../../src/domain/epic/create-epic.js';
import { decideDeleteEpic } from '../../../src/domain/epic/delete-epic.js';
import { decideUpdateEpic } from '../../../src/domain/epic/update-epic.js';
import type { CreateEpicCommand } from '../../../src/domain/epic/create-epic.js';
import { orderedEpics } from '../../../src/domain/epic/epic-order.js';
import type { EpicDoc } from '../../../src/domain/epic/epic-state.js';
import { decideCreateLabel } from '../../../src/domain/label/create-label.js';
import { decideDeleteLabel } from '../../../src/domain/label/delete-label.js';
import { changeKinds, fileDoc, upload } from './conversation-scenario.js';
import { givenProject, MEMBER, OWNER, problemsOf } from './decider-scenario.js';
import type { Scenario } from './decider-scenario.js';

const createEpic = decideCreateEpic;
const updateEpic = decideUpdateEpic;
const deleteEpic = decideDeleteEpic;

function epic(project: Scenario, command: CreateEpicCommand): number {
  return project.when(createEpic, command).data.changes[0]!.id;
}

function epicDoc(project: Scenario, id: number): EpicDoc | undefined {
  return project.state.epics.get(id);
}

function label(project: Scenario, name: string): number {
  return project.when(decideCreateLabel, { name }).data.changes[0]!.id;
}

describe('epics', () => {
  describe('create', () => {
    it('creates the label named like the epic when none is given, in the same event', () => {
      const project = givenProject();
      const decision = project.when(createEpic, { name: 'Onboarding', description: 'First steps' });
      expect(decision.type).to.equal('epic_create');
      expect(changeKinds(decision)).to.deep.equal(['epic:create', 'label:create']);
      const [created, labelCreated] = decision.data.changes;
      expect(created).to.deep.include({ kind: 'epic', id: created!.id, name: 'Onboarding' });
      expect(created!.new_values).to.deep.equal({
        id: created!.id,
        project_id: 7,
        name: 'Onboarding',
        description: 'First steps',
        label_id: labelCreated!.id,
        follower_ids: [],
        created_at: project.now,
        updated_at: project.now,
        before_id: null,
        after_id: null,
      });
      expect(labelCreated!.new_values).to.deep.include({ name: 'onboarding' });
      expect(decision.data.primary_resources).to.deep.equal([{ kind: 'epic', id: created!.id, name: 'Onboarding' }]);
      expect(epicDoc(project, created!.id)).to.not.have.property('before_id');
    });

    it('takes an existing label by id or by name, or creates one by name', () => {
      const project = givenProject();
      const existing = label(project, 'billing');
      const byId = epic(project, { name: 'Billing', label_id: existing });
      expect(epicDoc(project, byId)!.label_id).to.equal(existing);
      const bare = label(project, 'payments');
      expect(epicDoc(project, epic(project, { name: 'Payments', label: bare }))!.label_id).to.equal(bare);
      const other = label(project, 'search');
      const byName = project.when(createEpic, { name: 'Find things', label: { name: 'SEARCH' } });
      expect(changeKinds(byName)).to.deep.equal(['epic:create']);
      expect(epicDoc(project, byName.data.changes[0]!.id)!.label_id).to.equal(other);
      const created = epic(project, { name: 'Reports', label: { name: 'reporting' } });
      expect(epicDoc(project, created)!.label_id).to.equal(project.state.labelNamed('reporting')!.id);
    });

    it('refuses a blank name, an unknown label id and the label of another epic', () => {
      const project = givenProject();
      expect(problemsOf(project.rejected(createEpic, { name: ' ' }))).to.have.key('name');
      expect(problemsOf(project.rejected(createEpic, { name: 'x', label_id: 4040 })).label_id).to.equal(
        'Label 4040 does not exist in this project.',
      );
      expect(problemsOf(project.rejected(createEpic, { name: 'x', label: { id: 4040 } }))).to.have.key('label');
      const first = epic(project, { name: 'Mobile' });
      const taken = problemsOf(project.rejected(createEpic, { name: 'mobile' }));
      expect(taken.label).to.equal(`Label "mobile" already belongs to epic ${first}.`);
    });

    it('puts new epics at the bottom, or where before_id / after_id say', () => {
      const project = givenProject();
      const a = epic(project, { name: 'A' });
      const b = epic(project, { name: 'B' });
      const c = epic(project, { name: 'C', before_id: a });
      const d = epic(project, { name: 'D', after_id: a });
      expect(orderedEpics(project.state).map((doc) => doc.id)).to.deep.equal([c, a, d, b]);
      expect(problemsOf(project.rejected(createEpic, { name: 'E', after_id: 999 }))).to.have.key('after_id');
    });

    it('creates nested comments with the epic, their writers following it', () => {
      const project = givenProject();
      const file = upload(project, 'brief.pdf', MEMBER);
      const decision = project.when(createEpic, {
        name: 'Launch',
        comments: [{ text: 'Kick-off' }, { person_id: MEMBER, file_attachment_ids: [file] }],
      });
      expect(changeKinds(decision)).to.deep.equal(['epic:create', 'label:create', 'comment:create', 'comment:create', 'file_attachment:update']);
      const id = decision.data.changes[0]!.id;
      expect(decision.data.changes[0]!.new_values!.follower_ids).to.deep.equal([OWNER, MEMBER]);
      expect(decision.data.changes[2]!.new_values).to.deep.include({ epic_id: id, text: 'Kick-off' });
      expect(fileDoc(project, file)!.comment_id).to.equal(decision.data.changes[3]!.id);
    });
  });

  describe('update', () => {
    it('records only what changed, nulls explicit', () => {
      const project = givenProject();
      const id = epic(project, { name: 'Old', description: 'text' });
      const before = epicDoc(project, id)!;
      const decision = project.when(updateEpic, { epic_id: id, name: 'New', description: null });
      expect(decision.type).to.equal('epic_update');
      expect(decision.data.changes[0]).to.deep.include({
        kind: 'epic',
        change_type: 'update',
        name: 'New',
        original_values: { name: 'Old', description: 'text', updated_at: before.updated_at },
        new_values: { name: 'New', description: null, updated_at: project.now },
      });
      expect(epicDoc(project, id)).to.not.have.property('description');
    });

    it('changes the label, which stays behind for the stories', () => {
      const project = givenProject();
      const id = epic(project, { name: 'Epic' });
      const old = epicDoc(project, id)!.label_id;
      const decision = project.when(updateEpic, { epic_id: id, label: { name: 'fresh' } });
      expect(changeKinds(decision)).to.deep.equal(['epic:update', 'label:create']);
      expect(decision.data.changes[0]!.original_values).to.deep.include({ label_id: old });
      expect(project.label(old)).to.not.equal(undefined);
    });

    it('moves an epic: an epic_move recording the neighbours before and after', () => {
      const project = givenProject();
      const a = epic(project, { name: 'A' });
      const b = epic(project, { name: 'B' });
      const c = epic(project, { name: 'C' });
      const decision = project.when(updateEpic, { epic_id: c, before_id: a });
      expect(decision.type).to.equal('epic_move');
      expect(decision.data.changes[0]!.original_values).to.deep.include({ after_id: b });
      expect(decision.data.changes[0]!.new_values).to.deep.include({ before_id: a, after_id: null });
      expect(orderedEpics(project.state).map((doc) => doc.id)).to.deep.equal([c, a, b]);
      expect(problemsOf(project.rejected(updateEpic, { epic_id: a, before_id: a }))).to.have.key('before_id');
    });

    it('answers unfound for an epic that does not exist', () => {
      const project = givenProject();
      expect(project.rejected(updateEpic, { epic_id: 77, name: 'x' }).code).to.equal('unfound_resource');
    });
  });

  describe('delete', () => {
    it('deletes the epic and its comments, keeping its label', () => {
      const project = givenProject();
      const id = epic(project, { name: 'Gone', comments: [{ text: 'note' }] });
      const labelId = epicDoc(project, id)!.label_id;
      const decision = project.when(deleteEpic, { epic_id: id });
      expect(decision.type).to.equal('epic_delete');
      expect(changeKinds(decision)).to.deep.equal(['epic:delete', 'comment:delete']);
      expect(epicDoc(project, id)).to.equal(undefined);
      expect(project.label(labelId)).to.not.equal(undefined);
    });

    it('its label cannot be deleted while the epic lives', () => {
      const project = givenProject();
      const id = epic(project, { name: 'Kept' });
      const error = project.rejected(decideDeleteLabel, { label_id: epicDoc(project, id)!.label_id });
      expect(problemsOf(error)).to.have.key('label_id');
    });
  });

  it('comments on a deleted epic are unfound', () => {
    const project = givenProject();
    const id = epic(project, { name: 'E' });
    project.when(deleteEpic, { epic_id: id });
    expect(project.rejected(decideCreateComment, { epic_id: id, text: 'x' }).code).to.equal('unfound_resource');
  });
});
