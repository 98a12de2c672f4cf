import { expect } from 'chai';
import { decideAddMembership } from '../../../src/domain/project/add-membership.js';
import { ALREADY_MEMBER, LAST_OWNER } from '../../../src/domain/project/membership-rules.js';
import { decideChangeMembership, type ChangeMembership } from '../../../src/domain/project/change-membership.js';
import { decideRemoveMembership } from '../../../src/domain/project/remove-membership.js';
import { decideCreateProject } from '../../../src/domain/project/create-project.js';
import { Scenario, T0 } from './decider-scenario.js';

const OWNER = 42;
const withProject = (owner: number | null = OWNER) =>
  new Scenario('project-7').given(
    decideCreateProject, { projectId: 7, accountId: 3, request: { name: 'Alpha' }, owner: owner === null ? null : { personId: owner }, takenNames: [] },
  );
const membershipOf = (scenario: Scenario, personId: number) =>
  [...scenario.state.memberships].find((m) => m['person_id'] === personId)!;

describe('project membership decisions', () => {
  it('adds a member with defaults and raises the project version', () => {
    const scenario = withProject();
    const decision = scenario.when(decideAddMembership, { personId: 50, role: 'viewer', personName: 'Bob' }, { now: T0 + 1 });
    expect(decision.type).to.equal('project_membership_create');
    expect(decision.data.secondary_resources).to.deep.equal([{ kind: 'project', id: 7, name: 'Alpha' }]);
    expect(membershipOf(scenario, 50)).to.deep.include({
      project_id: 7,
      role: 'viewer',
      favorite: false,
      wants_comment_notification_emails: true,
      will_receive_mention_notifications_or_emails: true,
      created_at: T0 + 1,
    });
    expect(membershipOf(scenario, 50)['project_color']).to.match(/^[0-9a-f]{6}$/);
    expect(scenario.state.version).to.equal(2);
  });

  it('keeps a requested color, lower-cased', () => {
    const scenario = withProject();
    scenario.when(decideAddMembership, { personId: 50, role: 'member', projectColor: 'ABCDEF' });
    expect(membershipOf(scenario, 50)['project_color']).to.equal('abcdef');
  });

  it('rejects a second membership of the same person, an unknown role and a bad color', () => {
    const scenario = withProject();
    const error = scenario.rejects(decideAddMembership, { personId: OWNER, role: 'member' }, 'invalid_parameter', 'person_id');
    expect(error.details.validation_errors?.[0]?.problem).to.equal(ALREADY_MEMBER);
    scenario.rejects(decideAddMembership, { personId: 50, role: 'boss' as never }, 'invalid_parameter', 'role');
    scenario.rejects(decideAddMembership, { personId: 50, role: 'member', projectColor: '#fff' }, 'invalid_parameter', 'project_color');
  });

  it('lets an owner change a role, recording the original value', () => {
    const scenario = withProject().given(decideAddMembership, { personId: 50, role: 'viewer' });
    const id = membershipOf(scenario, 50).id;
    const decision = scenario.when(decideChangeMembership, { membershipId: id, request: { role: 'member' }, actorRole: 'owner', actorId: OWNER });
    expect(decision.data.changes[0]?.original_values).to.include({ role: 'viewer' });
    expect(membershipOf(scenario, 50)['role']).to.equal('member');
  });

  it('lets a member change only their own favorite and color', () => {
    const scenario = withProject().given(decideAddMembership, { personId: 50, role: 'member' }).given(decideAddMembership, { personId: 51, role: 'member' });
    const own = membershipOf(scenario, 50).id;
    const other = membershipOf(scenario, 51).id;
    scenario.when(decideChangeMembership, { membershipId: own, request: { favorite: true, project_color: '123456' }, actorRole: 'member', actorId: 50 });
    expect(membershipOf(scenario, 50)).to.deep.include({ favorite: true, project_color: '123456' });
    scenario.rejects(decideChangeMembership, { membershipId: own, request: { role: 'owner' }, actorRole: 'member', actorId: 50 }, 'unauthorized_operation');
    scenario.rejects(decideChangeMembership, { membershipId: other, request: { favorite: true }, actorRole: 'member', actorId: 50 }, 'unauthorized_operation');
  });

  it('refuses to demote or remove the last owner, but allows it once another owner exists', () => {
    const scenario = withProject();
    const ownerMembership = membershipOf(scenario, OWNER).id;
    const demote: ChangeMembership = { membershipId: ownerMembership, request: { role: 'member' }, actorRole: 'owner', actorId: OWNER };
    const error = scenario.rejects(decideChangeMembership, demote, 'invalid_parameter', 'role');
    expect(error.details.validation_errors?.[0]?.problem).to.equal(LAST_OWNER);
    scenario.rejects(decideRemoveMembership, { membershipId: ownerMembership, actorRole: 'owner', actorId: OWNER }, 'invalid_parameter', 'role');
    scenario.given(decideAddMembership, { personId: 50, role: 'owner' });
    scenario.when(decideChangeMembership, demote);
    expect(membershipOf(scenario, OWNER)['role']).to.equal('member');
  });

  it('removes a membership', () => {
    const scenario = withProject().given(decideAddMembership, { personId: 50, role: 'member' });
    const id = membershipOf(scenario, 50).id;
    const decision = scenario.when(decideRemoveMembership, { membershipId: id, actorRole: 'owner', actorId: OWNER });
    expect(decision.data.changes).to.deep.equal([
      { kind: 'project_membership', change_type: 'delete', id, original_values: { person_id: 50, role: 'member' } },
    ]);
    expect(scenario.state.memberships.has(id)).to.equal(false);
    scenario.rejects(decideRemoveMembership, { membershipId: id, actorRole: 'owner', actorId: OWNER }, 'unfound_resource');
  });

  it('names the member on each membership change and on the membership it names as primary resource', () => {
    const scenario = withProject();
    const added = scenario.when(decideAddMembership, { personId: 50, role: 'viewer', personName: 'Bob Brown' });
    const id = membershipOf(scenario, 50).id;
    const changed = scenario.when(
      decideChangeMembership, { membershipId: id, request: { role: 'member' }, actorRole: 'owner', actorId: OWNER, personName: 'Bob Brown' },
    );
    const removed = scenario.when(decideRemoveMembership, { membershipId: id, actorRole: 'owner', actorId: OWNER, personName: 'Bob Brown' });
    for (const decision of [added, changed, removed]) {
      expect(decision.data.changes.map((change) => [change.kind, change.id, change.name])).to.deep.equal([['project_membership', id, 'Bob Brown']]);
      expect(decision.data.primary_resources).to.deep.equal([{ kind: 'project_membership', id, name: 'Bob Brown' }]);
    }
    expect(membershipOf(scenario, 50)).to.equal(undefined);
  });

  it('lets a member leave but not remove someone else', () => {
    const scenario = withProject().given(decideAddMembership, { personId: 50, role: 'member' }).given(decideAddMembership, { personId: 51, role: 'viewer' });
    scenario.rejects(decideRemoveMembership, { membershipId: membershipOf(scenario, 51).id, actorRole: 'member', actorId: 50 }, 'unauthorized_operation');
    scenario.when(decideRemoveMembership, { membershipId: membershipOf(scenario, 51).id, actorRole: 'viewer', actorId: 51 });
    expect(membershipOf(scenario, 51)).to.equal(undefined);
  });

  it('lets an owner-less project gain and lose members', () => {
    const scenario = withProject(null).given(decideAddMembership, { personId: 50, role: 'member' });
    scenario.when(decideRemoveMembership, { membershipId: membershipOf(scenario, 50).id, actorRole: null, actorId: null });
  });

  it('is unfound without a project', () => {
    new Scenario('project-9').rejects(decideAddMembership, { personId: 50, role: 'member' }, 'unfound_resource');
  });
});
