// Formula injection in the CSV exports (OWASP "CSV Injection"): story names, label names and owner names
// that a spreadsheet would run as a formula (leading `=`, `+`, `-`, `@`, tab, CR) come out of every CSV
// route with a leading `'`; numbers stay numbers; quoting stays RFC 4180.
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { storylineApp, type PersonHandle, type StorylineApp } from './support/storyline-app.js';
import { FORMULA_NAMES } from '../support/formula-names.js';

describe('API: CSV exports neutralise formulas', () => {
  let app: StorylineApp;
  let owner: PersonHandle;
  let p: number;
  let release: number;
  const storyIds: number[] = [];

  before(async () => {
    app = await storylineApp();
    owner = await app.person('Olivia Owner');
    const evil = await app.storyline.addPerson({ email: 'evil@example.com', name: '@SUM(1+1)*cmd', password: 'evil-password-1' });
    p = (await app.api('POST', '/projects', { as: owner, body: { name: 'Sheets', new_account_name: 'S', start_date: '2024-01-01' } })).json.id;
    expect((await app.api('POST', `/projects/${p}/memberships`, { as: owner, body: { person_id: evil.id, role: 'member' } })).status).to.equal(200);
    for (const [name] of FORMULA_NAMES) {
      const body = { name, current_state: 'started', estimate: 1, labels: [`-label ${storyIds.length}`], owner_ids: [evil.id] };
      const res = await app.api('POST', `/projects/${p}/stories`, { as: owner, body });
      expect(res.status, res.text).to.equal(200);
      expect(res.json.name).to.equal(name);
      storyIds.push(res.json.id);
    }
    const marker = await app.api('POST', `/projects/${p}/stories`, { as: owner, body: { name: '=release', story_type: 'release', current_state: 'unstarted', after_id: storyIds.at(-1) } });
    expect(marker.status, marker.text).to.equal(200);
    release = marker.json.id;
    app.clock.now += 3_600_000;
  });
  after(() => app.close());

  const csvRows = async (path: string): Promise<string[][]> => {
    const res = await app.api('GET', path, { as: owner });
    expect(res.status, res.text).to.equal(200);
    return parse(res.text, { relax_column_count: true }) as string[][];
  };

  const expectNeutralised = (rows: string[][]): void => {
    const [header, ...all] = rows;
    const title = header!.indexOf('Title');
    const id = header!.indexOf('ID');
    const lines = all.filter((line) => storyIds.includes(Number(line[id])));
    const labels = header!.indexOf('Labels');
    const estimate = header!.indexOf('Estimate');
    const owned = header!.indexOf('Owned By');
    expect(lines.map((line) => line[title])).to.deep.equal(FORMULA_NAMES.map(([, written]) => written));
    expect(lines.map((line) => line[labels])).to.deep.equal(FORMULA_NAMES.map((_, index) => `'-label ${index}`));
    expect(lines.map((line) => [line[estimate], line[owned]])).to.deep.equal(FORMULA_NAMES.map(() => ['1', "'@SUM(1+1)*cmd"]));
  };

  it('cycle_time_details.csv', async () => {
    const rows = await csvRows(`/projects/${p}/iterations/2/analytics/cycle_time_details.csv`);
    expectNeutralised(rows);
    expect(rows.find((line) => line[4] === String(release))?.[3]).to.equal("'=release");
  });

  it('a release stories CSV', async () => {
    expectNeutralised(await csvRows(`/projects/${p}/releases/${release}/stories.csv`));
  });

  it('iteration analytics.csv keeps its numbers numbers', async () => {
    const rows = await csvRows(`/projects/${p}/iterations/2/analytics.csv`);
    expect(rows).to.deep.equal([['stories_accepted', 'bugs_created', 'cycle_time', 'rejection_rate'], ['0', '0', '0', '0']]);
  });
});
