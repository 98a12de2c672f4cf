// Emails are shown only to people who may see them (the person, and people sharing a project or an
// account with them); nothing else may reveal them: ordering memberships by email is refused to other
// callers, and an invited person's username and default name are not made from the email's local part.
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

describe('API: email privacy', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let outsider: PersonHandle;
  let projectId: number;

  before(async () => {
    app = await storylineApp();
    owner = await app.person('Owner');
    outsider = await app.person('Outsider');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Open', public: true, new_account_name: 'Acme' } })).json.id;
    const member = await app.person('Member');
    await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: member.id, role: 'member' } });
  });
  after(() => app.close());

  const memberships = (as: PersonHandle | undefined, sortBy: string) =>
    app.api('GET', `/projects/${projectId}/memberships`, { ...(as ? { as } : {}), query: { sort_by: sortBy } });

  it('refuses sort_by=email to callers who may not see the emails, and serves it to members', async () => {
    for (const as of [outsider, undefined]) {
      const res = await memberships(as, 'email');
      expect(res.status, res.text).to.equal(400);
      expect(res.json.validation_errors).to.deep.equal([{ field: 'sort_by', problem: "sort_by=email is only available to callers who may see the members' emails." }]);
      expect((await memberships(as, 'name')).status).to.equal(200);
    }
    const sorted = await memberships(owner, 'email');
    expect(sorted.status, sorted.text).to.equal(200);
    const emails = sorted.json.map((m: { person: { email: string } }) => m.person.email);
    expect(emails).to.deep.equal([...emails].sort());
  });

  it('gives people invited by email a username and default name that say nothing of the email', async () => {
    const invited = await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { email: 'grace.hopper@example.com', role: 'viewer' } });
    expect(invited.status, invited.text).to.equal(200);
    const personId = invited.json.person.id;
    expect(invited.json.person).to.include({ email: 'grace.hopper@example.com', username: `user${personId}`, name: `user${personId}` });

    const seenByOutsider = (await memberships(outsider, 'id')).json.find((m: { person: { id: number } }) => m.person.id === personId);
    expect(seenByOutsider.person).to.not.have.property('email');
    expect(JSON.stringify(seenByOutsider)).to.not.match(/grace|hopper/i);

    const known = await app.api('POST', '/my/people', { as: outsider, body: { emails: ['alan.turing@example.com'] } });
    expect(known.status, known.text).to.equal(200);
    expect(JSON.stringify(known.json)).to.not.match(/alan|turing/i);
  });

  it('keeps a name given with the invitation', async () => {
    const invited = await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { email: 'k.johnson@example.com', name: 'Katherine Johnson' } });
    expect(invited.status, invited.text).to.equal(200);
    expect(invited.json.person).to.include({ name: 'Katherine Johnson', initials: 'KJ', username: `user${invited.json.person.id}` });
  });
});
