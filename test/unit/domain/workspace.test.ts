// Workspaces, given / when / then on a person's stream.
import type { PersonState } from '../../../src/domain/person/person-state.js';
import { expect } from 'chai';
import { decideCreateWorkspace } from '../../../src/domain/workspace/create-workspace.js';
import { decideDeleteWorkspace } from '../../../src/domain/workspace/delete-workspace.js';
import { decideUpdateWorkspace } from '../../../src/domain/workspace/update-workspace.js';
import { type WorkspaceDoc } from '../../../src/domain/workspace/workspace-rules.js';
import { Scenario, T0, problemsOf } from './decider-scenario.js';

const PERSON = 5;

function person(): Scenario<PersonState> {
  return new Scenario<PersonState>(`person-${PERSON}`, { actorId: PERSON, tickMs: 1000 });
}

function workspace(scenario: Scenario<PersonState>, id: number): WorkspaceDoc | undefined {
  return scenario.state.workspaces.get(id);
}

describe('workspaces', () => {
  it('creates a workspace of the person with the projects they can see, in order, once each', () => {
    const scenario = person();
    const decision = scenario.when(decideCreateWorkspace, { name: ' Mine ', project_ids: [3, 1, 3], visible_project_ids: [1, 3] });
    expect(decision.type).to.equal('workspace_create');
    expect(decision.data.changes[0]).to.deep.include({ kind: 'workspace', change_type: 'create', name: 'Mine' });
    expect(workspace(scenario, decision.subject.id)).to.deep.equal({
      id: decision.subject.id, person_id: PERSON, name: 'Mine', project_ids: [3, 1], created_at: T0 + 1000, updated_at: T0 + 1000,
    });
  });

  it('refuses a blank name and projects the person cannot see, writing nothing', () => {
    const scenario = person();
    expect(problemsOf(scenario.rejects(decideCreateWorkspace, { name: ' ', visible_project_ids: [] }, 'invalid_parameter', 'name'))['name']).to.equal("Name can't be blank");
    const error = scenario.rejects(decideCreateWorkspace, { name: 'x', project_ids: [1, 2], visible_project_ids: [1] }, 'invalid_parameter', 'project_ids');
    expect(problemsOf(error)['project_ids']).to.equal('Project 2 does not exist or is not visible to you.');
  });

  it('renames it and replaces its projects, keeping one the person no longer sees; changes only what changed', () => {
    const scenario = person();
    const id = scenario.when(decideCreateWorkspace, { name: 'Mine', project_ids: [1, 2], visible_project_ids: [1, 2] }).subject.id;
    // project 2 is hidden from the person now: it may stay, but a new unseen project may not come in
    const kept = scenario.when(decideUpdateWorkspace, { workspace_id: id, project_ids: [2, 4], visible_project_ids: [4] });
    expect(kept.data.changes[0]!.original_values).to.deep.include({ project_ids: [1, 2] });
    expect(kept.data.changes[0]!.new_values).to.deep.include({ project_ids: [2, 4] });
    expect(kept.data.changes[0]!.new_values).to.not.have.property('name');
    scenario.rejects(decideUpdateWorkspace, { workspace_id: id, project_ids: [2, 9], visible_project_ids: [] }, 'invalid_parameter', 'project_ids');
    scenario.rejects(decideUpdateWorkspace, { workspace_id: id, visible_project_ids: [] }, 'invalid_parameter', 'name');
    scenario.when(decideUpdateWorkspace, { workspace_id: id, name: 'Ours', visible_project_ids: [] });
    expect(workspace(scenario, id)).to.include({ name: 'Ours' });
  });

  it('deletes it; someone else acting on the stream, or an unknown id, finds nothing', () => {
    const scenario = person();
    const id = scenario.when(decideCreateWorkspace, { name: 'Mine', visible_project_ids: [] }).subject.id;
    scenario.rejects(decideDeleteWorkspace, { workspace_id: id }, 'unfound_resource', undefined, 6);
    scenario.rejects(decideUpdateWorkspace, { workspace_id: id, name: 'x', visible_project_ids: [] }, 'unfound_resource', undefined, null);
    scenario.rejects(decideDeleteWorkspace, { workspace_id: 4242 }, 'unfound_resource');
    const deleted = scenario.when(decideDeleteWorkspace, { workspace_id: id });
    expect(deleted.type).to.equal('workspace_delete');
    expect(workspace(scenario, id)).to.equal(undefined);
  });
});
