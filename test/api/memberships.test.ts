import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

describe('API: project memberships', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let member: PersonHandle;
  let projectId: number;
  const path = () => `/projects/${projectId}/memberships`;

  before(async () => {
    app = await storylineApp();
    owner = await app.person('Olive Owner');
    member = await app.person('Mike Member');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Team', new_account_name: 'Acme', public: true } })).json.id;
  });
  after(() => app.close());

  it('adds an existing person by person_id and a new one by email, raising the version each time', async () => {
    const byId = await app.api('POST', path(), { as: owner, body: { person_id: String(member.id), role: 'member', project_color: 'AABBCC' } });
    expect(byId.status).to.equal(200);
    expect(byId.json).to.deep.include({ kind: 'project_membership', project_id: projectId, role: 'member', project_color: 'aabbcc', favorite: false });
    expect(byId.json.person).to.deep.equal({ kind: 'person', id: member.id, name: 'Mike Member', email: member.email, initials: 'MM', username: 'mike.member' });
    expect(byId.headers['x-tracker-project-version']).to.equal('2');

    const byEmail = await app.api('POST', path(), { as: owner, body: { email: 'Vera@Example.com', name: 'Vera Viewer', initials: 'VV', role: 'viewer' } });
    expect(byEmail.status).to.equal(200);
    expect(byEmail.json.person).to.deep.include({ name: 'Vera Viewer', initials: 'VV', email: 'vera@example.com', username: `user${byEmail.json.person.id}` });
    expect(byEmail.headers['x-tracker-project-version']).to.equal('3');
  });

  it('rejects a duplicate, a missing person, an unknown role and an unknown person_id', async () => {
    const duplicate = await app.api('POST', path(), { as: owner, body: { person_id: member.id } });
    expect(duplicate.status).to.equal(400);
    expect(duplicate.json.validation_errors[0]).to.deep.equal({ field: 'person_id', problem: 'This person is already a member of the project.' });
    expect((await app.api('POST', path(), { as: owner, body: { role: 'member' } })).json.general_problem).to.equal(
      'this endpoint requires one of the following parameters: email, person_id',
    );
    expect((await app.api('POST', path(), { as: owner, body: { email: 'x@example.com', role: 'boss' } })).json.validation_errors[0].field).to.equal('role');
    expect((await app.api('POST', path(), { as: owner, body: { person_id: 99999 } })).status).to.equal(400);
  });

  it('sorts by id by default and by person name with sort_by', async () => {
    const byId = await app.api('GET', path(), { as: owner });
    const ids = byId.json.map((m: any) => m.id);
    expect(ids).to.deep.equal([...ids].sort((a: number, b: number) => a - b));
    const byName = await app.api('GET', path(), { as: owner, query: { sort_by: 'name' } });
    expect(byName.json.map((m: any) => m.person.name)).to.deep.equal(['Mike Member', 'Olive Owner', 'Vera Viewer']);
    expect((await app.api('GET', path(), { as: owner, query: { sort_by: 'shoe_size' } })).status).to.equal(400);
  });

  it('hides emails from callers who share no project with the members', async () => {
    const anonymous = await app.api('GET', path());
    expect(anonymous.status).to.equal(200);
    expect(anonymous.json.every((m: any) => m.person.email === undefined)).to.equal(true);
    const outsider = await app.person('Otto Outsider');
    const seen = await app.api('GET', path(), { as: outsider });
    expect(seen.json.every((m: any) => m.person.email === undefined)).to.equal(true);
    const insider = await app.api('GET', path(), { as: member });
    expect(insider.json.every((m: any) => typeof m.person.email === 'string')).to.equal(true);
  });

  it('gets one membership, 404 for another project or unknown id', async () => {
    const [first] = (await app.api('GET', path(), { as: owner })).json;
    expect((await app.api('GET', `${path()}/${first.id}`, { as: owner })).json.id).to.equal(first.id);
    expect((await app.api('GET', `${path()}/999999`, { as: owner })).status).to.equal(404);
    const other = (await app.api('POST', '/projects', { as: owner, body: { name: 'Other', new_account_name: 'Other co' } })).json.id;
    expect((await app.api('GET', `/projects/${other}/memberships/${first.id}`, { as: owner })).status).to.equal(404);
  });

  it('lets owners change roles and members only their own favorite and color', async () => {
    const list = (await app.api('GET', path(), { as: owner })).json;
    const mine = list.find((m: any) => m.person.id === member.id);
    const vera = list.find((m: any) => m.person.name === 'Vera Viewer');
    const own = await app.api('PUT', `${path()}/${mine.id}`, { as: member, body: { favorite: 'true', project_color: '00ff00' } });
    expect(own.status).to.equal(200);
    expect(own.json).to.deep.include({ favorite: true, project_color: '00ff00' });
    expect((await app.api('PUT', `${path()}/${mine.id}`, { as: member, body: { role: 'owner' } })).status).to.equal(403);
    expect((await app.api('PUT', `${path()}/${vera.id}`, { as: member, body: { favorite: true } })).status).to.equal(403);
    const promoted = await app.api('PUT', `${path()}/${vera.id}`, { as: owner, body: { role: 'member' } });
    expect(promoted.json.role).to.equal('member');
  });

  it('keeps the last owner and lets members leave', async () => {
    const list = (await app.api('GET', path(), { as: owner })).json;
    const ownerMembership = list.find((m: any) => m.person.id === owner.id);
    const demote = await app.api('PUT', `${path()}/${ownerMembership.id}`, { as: owner, body: { role: 'viewer' } });
    expect(demote.status).to.equal(400);
    expect(demote.json.validation_errors[0].problem).to.equal('A project must keep at least one owner.');
    expect((await app.api('DELETE', `${path()}/${ownerMembership.id}`, { as: owner })).status).to.equal(400);
    const mine = list.find((m: any) => m.person.id === member.id);
    expect((await app.api('DELETE', `${path()}/${ownerMembership.id}`, { as: member })).status).to.equal(403);
    const left = await app.api('DELETE', `${path()}/${mine.id}`, { as: member });
    expect(left.status).to.equal(204);
    expect((await app.api('GET', `${path()}/${mine.id}`, { as: owner })).status).to.equal(404);
    expect((await app.api('PUT', `/projects/${projectId}`, { as: member, body: { name: 'Mine now' } })).status).to.equal(403);
  });
});
