// Error hashes the recordings show (facts §4.2, §4.3, §11), compared key by key: where a recorded hash
// carries `general_problem` ours does, with the recorded text, and where it carries none ours has none.
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

const INVALID = 'One or more request parameters was missing or invalid.';
const LONG_NAME = 'Project name contain more than 50 characters in name field';

describe('API: error hashes as recorded', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let stranger: PersonHandle;
  let projectId: number;
  let accountId: number;

  before(async () => {
    app = await storylineApp();
    owner = await app.person('Olive Owner');
    stranger = await app.person('Sam Stranger');
    const project = await app.api('POST', '/projects', { as: owner, body: { name: 'Recorded', new_account_name: 'Acme' } });
    projectId = project.json.id;
    accountId = project.json.account_id;
  });
  after(() => app.close());

  it('a project name over 50 characters: general_problem "This extended_string is too long:  \'<name>\'" and the limit in requirement (create and update)', async () => {
    const expected = {
      kind: 'error',
      code: 'invalid_parameter',
      error: INVALID,
      general_problem: `This extended_string is too long:  '${LONG_NAME}'`,
      requirement: "'name' parameter must be 50 characters or less.",
      validation_errors: [{ field: 'name', problem: "'name' parameter must be 50 characters or less." }],
    };
    const created = await app.api('POST', '/projects', { as: owner, body: { name: LONG_NAME, account_id: accountId } });
    expect(created.status).to.equal(400);
    expect(created.json).to.deep.equal(expected);
    const updated = await app.api('PUT', `/projects/${projectId}`, { as: owner, body: { name: LONG_NAME } });
    expect(updated.status).to.equal(400);
    expect(updated.json).to.deep.equal(expected);
    expect((await app.api('GET', `/projects/${projectId}`, { as: owner })).json.name).to.equal('Recorded');
  });

  it('unauthorized_operation: the recorded general_problem and possible_fix, word for word', async () => {
    const refused = await app.api('GET', `/projects/${projectId}`, { as: stranger });
    expect(refused.status).to.equal(403);
    expect(refused.json).to.deep.equal({
      code: 'unauthorized_operation',
      kind: 'error',
      error: 'Authorization failure.',
      general_problem: "You aren't authorized to access the requested resource.",
      possible_fix:
        "Your project permissions are determined on the Project Membership page. If you are receiving this error you may be trying to access the wrong project, or the project API access is disabled, or someone listed as the project's Owner needs to change your membership type.",
    });
  });

  it('invalid_authentication carries possible_fix and no general_problem, for bad credentials and for an XHR without any', async () => {
    const answers = [
      await app.api('GET', '/me', { headers: { 'X-TrackerToken': '0'.repeat(32) } }),
      await app.api('GET', '/me', { headers: { Authorization: `Basic ${Buffer.from('olive.owner:wrong').toString('base64')}` } }),
      await app.api('GET', `/projects/${projectId}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } }),
    ];
    for (const res of answers) {
      expect(res.status).to.equal(403);
      expect(res.json).to.have.all.keys('kind', 'code', 'error', 'possible_fix');
      expect(res.json).to.include({ code: 'invalid_authentication', error: 'Invalid authentication credentials were presented.' });
    }
    expect(answers[2]!.json.possible_fix).to.contain('No credentials were presented');
  });

  it('a started feature without an estimate: general_problem and validation_errors as recorded', async () => {
    const story = (await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name: 'Unestimated' } })).json;
    const res = await app.api('PUT', `/projects/${projectId}/stories/${story.id}`, { as: owner, body: { current_state: 'started' } });
    expect(res.status).to.equal(400);
    expect(res.json).to.deep.equal({
      kind: 'error',
      code: 'invalid_parameter',
      error: INVALID,
      general_problem: 'Stories in the started state must be estimated.',
      validation_errors: [{ field: 'estimate', problem: 'Stories in the started state must be estimated.' }],
    });
  });

  it('parameter presence and blank values in general_problem: a project without name, an empty task, an empty comment update', async () => {
    const story = (await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body: { name: 'Talked about' } })).json;
    const comment = (await app.api('POST', `/projects/${projectId}/stories/${story.id}/comments`, { as: owner, body: { text: 'first' } })).json;
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/projects', { account_id: accountId }, 'this endpoint requires the parameter: name'],
      ['POST', `/projects/${projectId}/stories/${story.id}/tasks`, { description: '' }, "Description can't be blank"],
      ['PUT', `/projects/${projectId}/stories/${story.id}/comments/${comment.id}`, {}, 'this endpoint requires at least one of the following parameters: '],
    ];
    for (const [method, path, body, general] of cases) {
      const res = await app.api(method, path, { as: owner, body });
      expect(res.status, path).to.equal(400);
      expect(res.json, path).to.include({ kind: 'error', code: 'invalid_parameter', error: INVALID });
      expect(res.json.general_problem, path).to.satisfy((text: string) => text.startsWith(general));
    }
  });

  it('unfound_resource and route_not_found carry no general_problem, as recorded', async () => {
    const unfound = await app.api('GET', `/projects/${projectId}/stories/999999`, { as: owner });
    expect(unfound.status).to.equal(404);
    expect(unfound.json).to.have.all.keys('kind', 'code', 'error');
    expect(unfound.json.code).to.equal('unfound_resource');
    const noRoute = await app.api('GET', '/projectsInvalid', { as: owner });
    expect(noRoute.status).to.equal(404);
    expect(noRoute.json).to.deep.equal({ kind: 'error', code: 'route_not_found', error: 'The path you requested has no valid endpoint.' });
  });
});
