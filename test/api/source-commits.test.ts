// POST /source_commits as GitLab's Pivotal Tracker integration sends it: the stories a commit message
// names get a comment by the token's person, move as a client's PUT would when a verb says so, in ONE
// event per project; unknown ids, stories the person may not write and commits already recorded are
// skipped; bodies without the required keys are 400 naming them.
import { expect } from 'chai';
import { MAX_COMMENT_TEXT } from '../../src/domain/comment/comment-writes.js';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';

type Json = Record<string, any>;

describe('POST /source_commits', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let projectId: number;

  beforeEach(async () => {
    app = await storylineApp();
    owner = await app.person('Gita Gitlab');
    projectId = (await app.api('POST', '/projects', { as: owner, body: { name: 'Committed', new_account_name: 'Commits Inc' } })).json.id;
  });
  afterEach(() => app.close());

  async function story(body: Json, project = projectId): Promise<Json> {
    const res = await app.api('POST', `/projects/${project}/stories`, { as: owner, body });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }

  /** Posts a commit; the answer's comments show their commit attributes (not among a comment's defaults). */
  function commit(body: Json, as: PersonHandle = owner) {
    return app.api('POST', '/source_commits?fields=:default,commit_identifier,commit_type', { as, body: { source_commit: body } });
  }

  async function version(project = projectId): Promise<number> {
    return Number((await app.api('GET', `/projects/${project}`, { as: owner })).headers['x-tracker-project-version']);
  }

  it('comments on every story a message names, with the message, url, author and the commit id', async () => {
    const a = await story({ name: 'A' });
    const b = await story({ name: 'B' });
    const res = await commit({ commit_id: 'abc123', message: `Fix the thing [#${a.id}] and [#${b.id}]`, url: 'https://gitlab.example.com/c/abc123', author: 'Gita' });
    expect(res.status, res.text).to.equal(200);
    expect(res.json).to.have.length(2);
    expect(res.json.map((comment: Json) => comment.story_id)).to.deep.equal([a.id, b.id]);
    const [first] = res.json as Json[];
    expect(first).to.include({ kind: 'comment', person_id: owner.id, commit_identifier: 'abc123' });
    expect(first!['commit_type']).to.equal(undefined);
    expect(first!['text']).to.equal(`Commit by Gita\nhttps://gitlab.example.com/c/abc123\n\nFix the thing [#${a.id}] and [#${b.id}]`);
    const comments = (await app.api('GET', `/projects/${projectId}/stories/${a.id}/comments?fields=:default,commit_identifier,commit_type`, { as: owner })).json;
    expect(comments.at(-1)).to.include({ commit_identifier: 'abc123', text: first!['text'] });
  });

  it('changes the stories of one project in ONE event (one version), a comment_create when nothing moves', async () => {
    const a = await story({ name: 'A' });
    const b = await story({ name: 'B' });
    const before = await version();
    await commit({ commit_id: 'one-event', message: `[#${a.id} #${b.id}]` });
    expect(await version()).to.equal(before + 1);
    const [activity] = (await app.api('GET', `/projects/${projectId}/activity?limit=1`, { as: owner })).json;
    expect(activity).to.include({ kind: 'comment_create_activity', project_version: before + 1 });
    expect(activity.primary_resources.map((resource: Json) => resource.id)).to.deep.equal([a.id, b.id]);
    expect(activity.changes.filter((change: Json) => change.kind === 'comment').length).to.equal(2);
  });

  it('finishes and delivers stories as a PUT would, in one story_update event', async () => {
    const finish = await story({ name: 'To finish', estimate: 1, current_state: 'started' });
    const deliver = await story({ name: 'To deliver', estimate: 2, current_state: 'finished' });
    const bug = await story({ name: 'A bug', story_type: 'bug', current_state: 'unstarted' });
    const before = await version();
    const res = await commit({ commit_id: 'f1', message: `[Finishes #${finish.id}] [delivers #${deliver.id}] [FIXED #${bug.id}]`, commit_type: 'gitlab' });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.map((comment: Json) => comment.commit_type)).to.deep.equal(['gitlab', 'gitlab', 'gitlab']);
    expect(await version()).to.equal(before + 1);
    const states = async (id: number) => (await app.api('GET', `/projects/${projectId}/stories/${id}`, { as: owner })).json.current_state;
    expect([await states(finish.id), await states(deliver.id), await states(bug.id)]).to.deep.equal(['finished', 'delivered', 'finished']);
    const [activity] = (await app.api('GET', `/projects/${projectId}/activity?limit=1`, { as: owner })).json;
    expect(activity.kind).to.equal('story_update_activity');
    const stateChange = activity.changes.find((change: Json) => change.kind === 'story' && change.id === finish.id);
    expect(stateChange.new_values).to.include({ current_state: 'finished' });
    expect(stateChange.original_values).to.include({ current_state: 'started' });
  });

  it('leaves an unestimated feature where it is and says why in its comment', async () => {
    const unestimated = await story({ name: 'No points', current_state: 'unstarted' });
    const res = await commit({ commit_id: 'no-move', message: `[Finishes #${unestimated.id}] done` });
    expect(res.status).to.equal(200);
    expect(res.json[0].text).to.include('Storyline did not move this story to finished: Stories in the finished state must be estimated.');
    expect((await app.api('GET', `/projects/${projectId}/stories/${unestimated.id}`, { as: owner })).json.current_state).to.equal('unstarted');
  });

  it('moves forward only: a delivered story a later commit finishes stays delivered', async () => {
    const delivered = await story({ name: 'Shipped', estimate: 1, current_state: 'delivered' });
    await commit({ commit_id: 'late', message: `[Finishes #${delivered.id}]` });
    expect((await app.api('GET', `/projects/${projectId}/stories/${delivered.id}`, { as: owner })).json.current_state).to.equal('delivered');
  });

  it('records a commit once per story: the same commit again answers [] and writes nothing', async () => {
    const a = await story({ name: 'A' });
    expect((await commit({ commit_id: 'twice', message: `[#${a.id}]` })).json).to.have.length(1);
    const before = await version();
    const again = await commit({ commit_id: 'twice', message: `[#${a.id}]` });
    expect(again.status).to.equal(200);
    expect(again.json).to.deep.equal([]);
    expect(await version()).to.equal(before);
    const b = await story({ name: 'B' });
    const partly = await commit({ commit_id: 'twice', message: `[#${a.id}] [#${b.id}]` });
    expect(partly.json.map((comment: Json) => comment.story_id)).to.deep.equal([b.id]);
  });

  it('skips unknown ids and the stories of projects the person may not write, one event per project it may', async () => {
    const viewer = await app.person('Vic Viewer');
    const member = await app.person('Meg Member');
    const own = await story({ name: 'Own' });
    const other = (await app.api('POST', '/projects', { as: owner, body: { name: 'Other', account_id: (await app.api('GET', `/projects/${projectId}`, { as: owner })).json.account_id } })).json;
    const elsewhere = await story({ name: 'Elsewhere' }, other.id);
    await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: viewer.id, role: 'viewer' } });
    await app.api('POST', `/projects/${projectId}/memberships`, { as: owner, body: { person_id: member.id, role: 'member' } });
    await app.api('POST', `/projects/${other.id}/memberships`, { as: owner, body: { person_id: member.id, role: 'member' } });

    const message = `[#${own.id}] [#${elsewhere.id}] [#99999999]`;
    const byViewer = await commit({ commit_id: 'v', message }, viewer);
    expect(byViewer.status).to.equal(200);
    expect(byViewer.json).to.deep.equal([]);

    const versions = [await version(), await version(other.id)];
    const byMember = await commit({ commit_id: 'm', message }, member);
    expect(byMember.json.map((comment: Json) => [comment.story_id, comment.person_id])).to.deep.equal([
      [own.id, member.id],
      [elsewhere.id, member.id],
    ]);
    expect([await version(), await version(other.id)]).to.deep.equal([versions[0]! + 1, versions[1]! + 1]);
  });

  it('answers [] for a message that names no story, and for brackets that are not story references', async () => {
    const a = await story({ name: 'A' });
    for (const message of ['plain message', `[WIP] #${a.id}`, `[Starts #${a.id}]`, `[constructor #${a.id}]`, '[#]']) {
      const res = await commit({ commit_id: `x-${message}`, message });
      expect(res.status, message).to.equal(200);
      expect(res.json, message).to.deep.equal([]);
    }
  });

  it('cuts a message longer than a comment may be, with a marker, never refusing it', async () => {
    const a = await story({ name: 'A' });
    const long = `[#${a.id}] ${'x'.repeat(30_000)}`;
    const res = await commit({ commit_id: 'long', message: long, author: 'Gita', url: 'https://example.com/c' });
    expect(res.status, res.text).to.equal(200);
    const text = res.json[0].text as string;
    expect(text.length).to.be.at.most(MAX_COMMENT_TEXT);
    expect(text).to.match(/\[cut: the commit message is longer than a comment may be\]$/);
    expect(text.startsWith(`Commit by Gita\nhttps://example.com/c\n\n[#${a.id}] xxx`)).to.equal(true);
  });

  it('is 400 naming the key when source_commit, commit_id or message is missing, or a key is unknown', async () => {
    const missing = async (body: unknown, field: string) => {
      const res = await app.api('POST', '/source_commits', { as: owner, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.json).to.include({ kind: 'error', code: 'invalid_parameter' });
      expect(res.json.validation_errors.map((error: Json) => error.field), JSON.stringify(body)).to.include(field);
    };
    await missing({}, 'source_commit');
    await missing({ source_commit: 'abc' }, 'source_commit');
    await missing({ source_commit: { message: 'm' } }, 'commit_id');
    await missing({ source_commit: { commit_id: 'c' } }, 'message');
    await missing({ source_commit: { commit_id: 'c', message: 'm', branch: 'main' } }, 'branch');
    await missing({ source_commit: { commit_id: 'c', message: 'm' }, extra: 1 }, 'extra');
    await missing({ source_commit: { commit_id: 'c'.repeat(256), message: 'm' } }, 'commit_id');
  });

  it('needs a person: 401 without a token, 403 with a bad one', async () => {
    const anonymous = await app.api('POST', '/source_commits', { body: { source_commit: { commit_id: 'c', message: 'm' } } });
    expect(anonymous.status).to.equal(401);
    const bad = await app.api('POST', '/source_commits', { headers: { 'X-TrackerToken': 'bad' }, body: { source_commit: { commit_id: 'c', message: 'm' } } });
    expect(bad.status).to.equal(403);
    expect(bad.json).to.include({ code: 'invalid_authentication' });
  });
});
