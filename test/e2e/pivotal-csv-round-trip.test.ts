// Tracker CSV both ways (issue 31 item 4): `storyline export-pivotal-csv` writes a project as a Tracker
// export, and `storyline import-pivotal-csv` of that file into an empty project gives the same stories,
// epics, labels, owners, tasks, comments, blockers and order, compared through the API. Both commands
// run as child processes beside the running server, on its data directory. Text a spreadsheet would run
// as a formula is written neutralised and read back unchanged.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { storylineApp, type PersonHandle, type StorylineApp } from '../api/support/storyline-app.js';
import { FORMULA_NAMES } from '../support/formula-names.js';

const bin = fileURLToPath(new URL('../../../bin/storyline.js', import.meta.url));

function storyline(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, STORYLINE_DATA: dataDir } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('CLI: export-pivotal-csv and import-pivotal-csv round trip', function () {
  this.timeout(90_000);
  let root: string;
  let dataDir: string;
  let app: StorylineApp;
  let owner: PersonHandle;
  let bob: PersonHandle;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'storyline-pivotal-round-'));
    dataDir = join(root, 'data');
    app = await storylineApp({ dataDir, start: Date.UTC(2024, 0, 10, 12) });
    owner = await app.person('Olivia Owner');
    bob = await app.person('Bob Member');
  });
  after(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function project(name: string): Promise<number> {
    const id = (await app.api('POST', '/projects', { as: owner, body: { name, new_account_name: `${name} Inc`, start_date: '2024-01-01' } })).json.id;
    await app.api('POST', `/projects/${id}/memberships`, { as: owner, body: { person_id: bob.id, role: 'member' } });
    return id;
  }

  async function post(path: string, body: Record<string, unknown>, as = owner): Promise<Record<string, any>> {
    const res = await app.api('POST', path, { as, body });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  }

  /** The project as a client sees it, without ids, times of the import, or urls. */
  async function seen(projectId: number): Promise<unknown> {
    await app.storyline.runner.waitFor(await app.storyline.eventStore.headPosition());
    const fields = 'name,story_type,current_state,estimate,story_priority,description,created_at,accepted_at,deadline,requested_by_id,owner_ids,' +
      'labels(name),tasks(description,complete,position),comments(text,person_id,created_at),blockers(description,resolved)';
    const stories = (await app.api('GET', `/projects/${projectId}/stories?fields=${fields}&limit=500`, { as: owner })).json;
    const epics = (await app.api('GET', `/projects/${projectId}/epics?fields=name,description,label(name),comments(text,person_id,created_at)`, { as: owner })).json;
    const labels = (await app.api('GET', `/projects/${projectId}/labels`, { as: owner })).json.map((label: { name: string }) => label.name);
    const withoutIds = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(withoutIds)
        : value !== null && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'id').map(([key, inner]) => [key, withoutIds(inner)]))
          : value;
    return { stories: withoutIds(stories), epics: withoutIds(epics), labels };
  }

  it('exports a project and imports it into an empty one with the same stories, epics and order', async () => {
    const source = await project('Source');
    const at = (iso: string) => Date.parse(iso);
    await post(`/projects/${source}/epics`, { name: 'Sign-in epic', description: 'All of auth', label: { name: 'auth' }, comments: [{ text: 'epic talk' }] });
    await post(`/projects/${source}/epics`, { name: 'Payments' });
    await post(`/projects/${source}/stories`, {
      name: 'Sign in, with "SSO"', story_type: 'feature', estimate: 2, current_state: 'accepted', accepted_at: at('2024-01-03T10:11:12Z'),
      created_at: at('2024-01-02T09:00:05Z'), description: 'Steps:\n1. open, 2. sign in', labels: ['auth', 'ui'], owner_ids: [bob.id, owner.id],
      requested_by_id: bob.id, story_priority: 'p1',
      tasks: [{ description: 'write tests', complete: true }, { description: 'docs, too' }],
      comments: [{ text: 'Looks good, ship it' }], blockers: [{ description: 'design review', resolved: true }],
    });
    await post(`/projects/${source}/stories`, { name: 'Release 1.0', story_type: 'release', current_state: 'unstarted', deadline: at('2024-02-01T00:00:00Z') });
    await post(`/projects/${source}/stories/`, { name: 'Fix the crash', story_type: 'bug', current_state: 'started', labels: ['bugs'], blockers: [{ description: 'waiting on ops' }] }, bob);
    const chore = await post(`/projects/${source}/stories`, { name: 'Icebox chore', story_type: 'chore' });
    await post(`/projects/${source}/stories`, { name: 'Icebox idea, first', before_id: chore['id'] });
    const bobsComment = await post(`/projects/${source}/stories/${chore['id']}/comments`, { text: 'mine (with parentheses)' }, bob);
    expect(bobsComment['person_id']).to.equal(bob.id);
    const before = await seen(source);

    const file = join(root, 'export.csv');
    const exported = await storyline(dataDir, 'export-pivotal-csv', '--project', String(source), '--out', file);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(JSON.parse(exported.stdout)).to.deep.equal({ exported: file, project: source, rows: 7 });
    const [header, ...records] = parse(readFileSync(file)) as string[][];
    expect(header!.slice(0, 16)).to.deep.equal([
      'Id', 'Title', 'Labels', 'Iteration', 'Iteration Start', 'Iteration End', 'Type', 'Estimate', 'Current State', 'Priority',
      'Created at', 'Accepted at', 'Deadline', 'Requested By', 'Description', 'URL',
    ]);
    expect(header!.slice(16)).to.deep.equal(['Owned By', 'Owned By', 'Blocker', 'Blocker Status', 'Comment', 'Task', 'Task Status', 'Task', 'Task Status']);
    // the stories in priority order (the scheduled ones in their iterations, then the Icebox), then the epics
    const stories = (before as { stories: Array<{ name: string; story_type: string; current_state: string }> }).stories;
    expect(records.map((record) => [record[1], record[6], record[3] !== ''])).to.deep.equal([
      ...stories.map((story) => [story.name, story.story_type, story.current_state !== 'unscheduled']),
      ['Sign-in epic', 'epic', false],
      ['Payments', 'epic', false],
    ]);
    expect(stories.map((story) => story.name).slice(-2)).to.deep.equal(['Icebox idea, first', 'Icebox chore']);
    expect(records[0]![20]).to.equal('Looks good, ship it (Olivia Owner - 2024-01-10T12:00:00Z)');
    const again = await storyline(dataDir, 'export-pivotal-csv', '--project', String(source), '--out', file);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain('exists');

    const target = await project('Target');
    const imported = await storyline(dataDir, 'import-pivotal-csv', file, '--project', String(target));
    expect(imported.code, imported.stdout + imported.stderr).to.equal(0);
    const summary = JSON.parse(imported.stdout.trim().split('\n').at(-1)!);
    expect(summary).to.deep.include({ stories_created: 5, epics_created: 2, rows_refused: 0, values_dropped: 0, unknown_people: [] });
    expect(await seen(target)).to.deep.equal(before);
  });

  it('writes formula-like text neutralised and imports it back unchanged', async () => {
    const source = await project('Formulas out');
    await post(`/projects/${source}/epics`, { name: '=Epic()', description: '+epic', label: { name: '@epic' }, comments: [{ text: '-epic talk' }] });
    for (const [index, [name]] of FORMULA_NAMES.entries()) {
      await post(`/projects/${source}/stories`, {
        name, estimate: index % 3, labels: [`=label ${index}`, `-other ${index}`], description: `@desc ${index}`,
        tasks: [{ description: `=task ${index}` }], comments: [{ text: `+1 ${index}` }], blockers: [{ description: `-blocked ${index}` }],
      });
    }
    const before = await seen(source);

    const file = join(root, 'formulas.csv');
    const exported = await storyline(dataDir, 'export-pivotal-csv', '--project', String(source), '--out', file);
    expect(exported.code, exported.stderr).to.equal(0);
    const [header, ...records] = parse(readFileSync(file)) as string[][];
    const column = (name: string) => header!.indexOf(name);
    // each new story went to the top of the Icebox: the export lists them newest first, then the epic
    const written = [...FORMULA_NAMES.entries()].reverse();
    const first = records.at(-2)!;
    expect([first[column('Title')], first[column('Labels')], first[column('Description')], first[column('Task')], first[column('Blocker')]]).to.deep.equal([
      FORMULA_NAMES[0]![1], "'-other 0, =label 0", "'@desc 0", "'=task 0", "'-blocked 0",
    ]);
    expect(first[column('Comment')]).to.match(/^'\+1 0 \(Olivia Owner - /);
    expect(records.map((record) => record[column('Title')])).to.deep.equal([...written.map(([, [, cell]]) => cell), "'=Epic()"]);
    expect(records.map((record) => record[column('Estimate')])).to.deep.equal([...written.map(([index]) => String(index % 3)), '']);

    const target = await project('Formulas in');
    const imported = await storyline(dataDir, 'import-pivotal-csv', file, '--project', String(target));
    expect(imported.code, imported.stdout + imported.stderr).to.equal(0);
    expect(await seen(target)).to.deep.equal(before);
  });

  it('imports a real export: an epic row becomes an epic with its label, a refused value is dropped and reported, the story kept', async () => {
    const target = await project('Real');
    const file = join(root, 'real.csv');
    writeFileSync(file, [
      'Id,Title,Labels,Iteration,Iteration Start,Iteration End,Type,Estimate,Current State,Created at,Accepted at,Deadline,Requested By,Description,URL,Owned By',
      '900,Checkout,payments,,,,epic,,,"Mar 1, 2016",,,Olivia Owner,The whole checkout,https://www.pivotaltracker.com/epic/show/900,',
      '901,Card declined,payments,,,,bug,,unstarted,"Mar 2, 2016",,"Mar 9, 2016",Zed Unknown,,https://www.pivotaltracker.com/story/show/901,Bob Member',
    ].join('\r\n'));
    const ran = await storyline(dataDir, 'import-pivotal-csv', file, '--project', String(target));
    expect(ran.code, ran.stdout + ran.stderr).to.equal(0);
    const lines = ran.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).to.deep.include({ record: 2, pivotal_id: '900', unknown_people: [] });
    expect(lines[0].epic_id).to.be.a('number');
    expect(lines[0].values_dropped).to.deep.equal(['Requested By: epics have none']);
    expect(lines[1]).to.deep.include({ pivotal_id: '901', unknown_people: ['Zed Unknown'], values_dropped: ['deadline: Only releases can have a deadline.'] });
    expect(lines.at(-1)).to.deep.include({ stories_created: 1, epics_created: 1, values_dropped: 2, rows_refused: 0, unknown_people: ['Zed Unknown'] });
    await app.storyline.runner.waitFor(await app.storyline.eventStore.headPosition());
    const epic = (await app.api('GET', `/projects/${target}/epics/${lines[0].epic_id}`, { as: owner })).json;
    expect(epic).to.deep.include({ name: 'Checkout', description: 'The whole checkout' });
    expect(epic.label.name).to.equal('payments');
    const story = (await app.api('GET', `/projects/${target}/stories/${lines[1].story_id}?fields=name,story_type,deadline,labels(name),owner_ids`, { as: owner })).json;
    expect(story).to.deep.equal({ id: lines[1].story_id, name: 'Card declined', story_type: 'bug', labels: [{ id: epic.label.id, name: 'payments' }], owner_ids: [bob.id] });
    expect(existsSync(file)).to.equal(true);
  });
});
