// `storyline import-pivotal-csv` as a child process beside a running server on the same data directory:
// a Tracker export written from the format becomes stories of the project in the file's order, with
// people matched by name, tasks, labels, dates, comments (authors matched by name, dates kept) and
// blockers; unknown people and refused rows are reported; importing the same file again writes nothing twice;
// names a CSV export neutralised against formula injection are read back unchanged.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { storylineApp, type PersonHandle, type StorylineApp } from '../api/support/storyline-app.js';
import { FORMULA_NAMES } from '../support/formula-names.js';

const bin = fileURLToPath(new URL('../../../bin/storyline.js', import.meta.url));

function importCsv(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, 'import-pivotal-csv', ...args], { env: { ...process.env, STORYLINE_DATA: dataDir } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const EXPORT_2016 = [
  'Id,Title,Labels,Iteration,Iteration Start,Iteration End,Type,Estimate,Current State,Created at,Accepted at,Deadline,Requested By,Description,URL,Owned By,Owned By,Comment,Comment,Task,Task Status,Task,Task Status,Blocker,Blocker Status',
  '501,"Sign in, with SSO",auth,1,"Feb 1, 2016","Feb 8, 2016",feature,2,accepted,"Feb 1, 2016","Feb 5, 2016",,Bob Member,"Steps:\n1. open, 2. sign in",https://www.pivotaltracker.com/story/show/501,Bob Member,Olivia Owner,"Done (Olivia Owner - Feb 5, 2016)",plain note without a signature,write tests,completed,"docs, too",not completed,design review,resolved',
  '502,Fix the crash,"auth, bugs",,,,bug,,unstarted,"Feb 2, 2016",,,Zed Unknown,,,Zed Unknown,,"Seen it too (Zed Unknown - Feb 3, 2016 3:04 PM)",,,,,,"waiting on 503",unresolved',
  '503,Refused: started without estimate,,,,,feature,,started,"Feb 2, 2016",,,Olivia Owner,,,,,,,,,,,,',
  '504,Icebox idea one,,,,,chore,,unscheduled,"Feb 3, 2016",,,Olivia Owner,,,,,,,,,,,,',
  '505,Icebox idea two,,,,,feature,,unscheduled,"Feb 3, 2016",,,Olivia Owner,,,,,,,,,,,,',
  '506,Second in the backlog,,,,,feature,1,unstarted,"Feb 4, 2016",,,Olivia Owner,,,,,,,,,,,,',
].join('\r\n');

describe('CLI: import-pivotal-csv', function () {
  this.timeout(60_000);
  let root: string;
  let app: StorylineApp;
  let owner: PersonHandle;
  let bob: PersonHandle;
  let project: number;
  let csvFile: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'storyline-pivotal-'));
    csvFile = join(root, 'export.csv');
    writeFileSync(csvFile, EXPORT_2016);
    app = await storylineApp({ dataDir: join(root, 'data'), start: Date.now() });
    owner = await app.person('Olivia Owner');
    bob = await app.person('Bob Member');
    project = (await app.api('POST', '/projects', { as: owner, body: { name: 'Imported', new_account_name: 'Import Inc' } })).json.id;
    await app.api('POST', `/projects/${project}/memberships`, { as: owner, body: { person_id: bob.id, role: 'member' } });
  });
  after(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function importedStories(): Promise<Record<string, any>[]> {
    await app.storyline.runner.waitFor(await app.storyline.eventStore.headPosition());
    const res = await app.api('GET', `/projects/${project}/stories?fields=:default,tasks,owner_ids&limit=500`, { as: owner });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }

  it('imports the rows as stories with their comments and blockers beside the running server, reporting unknown people', async () => {
    const ran = await importCsv(join(root, 'data'), csvFile, '--project', String(project));
    expect(ran.code, ran.stderr).to.equal(1);
    const lines = ran.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const summary = lines.at(-1);
    expect(summary).to.deep.include({
      stories_created: 5,
      rows_refused: 1,
      comments_created: 3,
      blockers_created: 2,
      unknown_people: ['Zed Unknown'],
      ignored_columns: ['Iteration', 'Iteration Start', 'Iteration End', 'URL'],
    });
    const refused = lines.find((line) => line.record === 4);
    expect(refused).to.include({ pivotal_id: '503' });
    expect(refused.problems.join(' ')).to.match(/estimate/);
    expect(summary.summary).to.equal(`5 stories and 0 epics (3 comments, 2 blockers) imported into project ${project}, 0 values dropped, 1 rows refused`);
    expect(lines.find((line) => line.pivotal_id === '502')).to.deep.include({
      unknown_people: ['Zed Unknown', 'Zed Unknown', 'Zed Unknown'],
      comments_created: 1,
      blockers_created: 1,
    });
    expect(refused).to.include({ comments_created: 0, blockers_created: 0 });

    // The running server picks the CLI's events up from the shared log.
    await app.storyline.runner.waitFor(await app.storyline.eventStore.headPosition());
    const stories = await importedStories();
    expect(stories.map((story) => story.name)).to.deep.equal([
      'Sign in, with SSO', 'Fix the crash', 'Second in the backlog', 'Icebox idea one', 'Icebox idea two',
    ]);
    const [accepted, bug] = stories;
    expect(accepted).to.deep.include({
      story_type: 'feature',
      current_state: 'accepted',
      estimate: 2,
      description: 'Steps:\n1. open, 2. sign in',
      requested_by_id: bob.id,
      owner_ids: [bob.id, owner.id],
      created_at: '2016-02-01T00:00:00Z',
      accepted_at: '2016-02-05T00:00:00Z',
    });
    expect(accepted.labels.map((label: { name: string }) => label.name)).to.deep.equal(['auth']);
    expect(accepted.tasks.map(({ description, complete }: { description: string; complete: boolean }) => ({ description, complete }))).to.deep.equal([
      { description: 'write tests', complete: true },
      { description: 'docs, too', complete: false },
    ]);
    expect(bug).to.deep.include({ story_type: 'bug', current_state: 'unstarted', requested_by_id: owner.id, owner_ids: [] });
    expect(bug.labels.map((label: { name: string }) => label.name)).to.deep.equal(['auth', 'bugs']);

    const comments = async (storyId: number) =>
      (await app.storyline.runner.collection('comments').find({ story_id: storyId })).map(({ text, person_id, created_at }) => ({ text, person_id, created_at }));
    // A known author writes her comment, its date kept; an unsigned comment is the importer's, dated now.
    const [signed, unsigned] = await comments(accepted.id);
    expect(signed).to.deep.equal({ text: 'Done', person_id: owner.id, created_at: Date.UTC(2016, 1, 5) });
    expect(unsigned).to.include({ text: 'plain note without a signature', person_id: owner.id });
    // An unknown author: written by the importer, the signature kept in the text, the date kept.
    expect(await comments(bug.id)).to.deep.equal([
      { text: 'Seen it too (Zed Unknown - Feb 3, 2016 3:04 PM)', person_id: owner.id, created_at: Date.UTC(2016, 1, 3, 15, 4) },
    ]);
    const blockers = async (storyId: number) =>
      (await app.storyline.runner.collection('blockers').find({ story_id: storyId })).map(({ description, resolved }) => ({ description, resolved }));
    expect(await blockers(accepted.id)).to.deep.equal([{ description: 'design review', resolved: true }]);
    expect(await blockers(bug.id)).to.deep.equal([{ description: 'waiting on 503', resolved: false }]);
  });

  it('writes nothing twice when the same file is imported again', async () => {
    const before = await importedStories();
    const ran = await importCsv(join(root, 'data'), csvFile, '--project', String(project));
    expect(JSON.parse(ran.stdout.trim().split('\n').at(-1)!)).to.include({ stories_created: 5 });
    expect((await importedStories()).map((story) => story.id)).to.deep.equal(before.map((story) => story.id));
  });

  it("reads back unchanged the names a release CSV neutralised against formula injection", async () => {
    const create = async (projectId: number, body: Record<string, unknown>) => {
      const res = await app.api('POST', `/projects/${projectId}/stories`, { as: owner, body });
      expect(res.status, res.text).to.equal(200);
      return res.json.id as number;
    };
    const newProject = async (name: string) => (await app.api('POST', '/projects', { as: owner, body: { name, new_account_name: name } })).json.id as number;
    const source = await newProject('Formulas out');
    let last = 0;
    for (const [index, [name]] of FORMULA_NAMES.entries()) {
      last = await create(source, { name, estimate: 1, current_state: 'unstarted', labels: [`=label ${index}`, `-other ${index}`] });
    }
    const release = await create(source, { name: '@release', story_type: 'release', current_state: 'unstarted', after_id: last });
    const exported = await app.api('GET', `/projects/${source}/releases/${release}/stories.csv`, { as: owner });
    expect(exported.status, exported.text).to.equal(200);
    expect(exported.text).to.contain(`'=HYPERLINK(`);
    const file = join(root, 'formulas.csv');
    writeFileSync(file, exported.text);

    const target = await newProject('Formulas in');
    const ran = await importCsv(join(root, 'data'), file, '--project', String(target));
    expect(ran.code, ran.stderr).to.equal(0);
    await app.storyline.runner.waitFor(await app.storyline.eventStore.headPosition());
    const stories = (await app.api('GET', `/projects/${target}/stories?fields=name,labels&limit=500`, { as: owner })).json;
    expect(stories.map((story: { name: string }) => story.name)).to.deep.equal(FORMULA_NAMES.map(([name]) => name));
    expect(stories.map((story: { labels: { name: string }[] }) => story.labels.map((label) => label.name).sort())).to.deep.equal(
      FORMULA_NAMES.map((_, index) => [`-other ${index}`, `=label ${index}`].sort()),
    );
  });

  it('refuses an unknown project, a file that is no Tracker export, and a missing --project', async () => {
    const unknown = await importCsv(join(root, 'data'), csvFile, '--project', '999999');
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.match(/project 999999/);
    const notExport = join(root, 'other.csv');
    writeFileSync(notExport, 'a,b\n1,2\n');
    const wrong = await importCsv(join(root, 'data'), notExport, '--project', String(project));
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.match(/no "Title"/);
    expect((await importCsv(join(root, 'data'), csvFile)).code).to.equal(2);
  });
});
