// Reading Tracker CSV exports: columns matched by name across the years' layouts, repeated columns in
// file order, Tracker's date spellings in the project's zone, comment signatures, and every problem of a
// row named instead of a half-read story.
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { parsePivotalDate } from '../../../src/infra/pivotal-csv/pivotal-dates.js';
import { PivotalHeaderError, pivotalColumns, pivotalComment, pivotalStoryRow } from '../../../src/infra/pivotal-csv/pivotal-story-rows.js';

const UTC = 'Etc/UTC';

function rows(csv: string, timeZone = UTC) {
  const [header, ...records] = parse(csv, { bom: true, relax_column_count: true }) as string[][];
  const columns = pivotalColumns(header!);
  return { columns, results: records.map((cells, index) => pivotalStoryRow(columns, cells, index + 2, timeZone)) };
}

describe('Pivotal CSV: story rows', () => {
  it('reads a 2016 export (no Priority, "Feb 11, 2016" dates, quoted newlines and commas, repeated columns)', () => {
    const csv = [
      'Id,Title,Labels,Iteration,Iteration Start,Iteration End,Type,Estimate,Current State,Created at,Accepted at,Deadline,Requested By,Description,URL,Owned By,Owned By,Comment,Comment,Task,Task Status,Task,Task Status',
      '1001,"Export, then import","api, ui",3,"Feb 8, 2016","Feb 15, 2016",feature,2,accepted,"Feb 11, 2016","Feb 14, 2016",,Olivia Owner,"Line one\nline ""two"", with a comma",https://www.pivotaltracker.com/story/show/1001,Bob Member,Carol Viewer,"Looks good, ship it (Bob Member - Feb 12, 2016)",plain note,write tests,completed,"update docs, too",not completed',
    ].join('\r\n');
    const { columns, results } = rows(csv);
    expect(columns.ignored).to.deep.equal(['Iteration', 'Iteration Start', 'Iteration End', 'URL']);
    expect(results).to.deep.equal([
      {
        ok: true,
        row: {
          kind: 'story',
          record: 2,
          pivotalId: '1001',
          name: 'Export, then import',
          storyType: 'feature',
          currentState: 'accepted',
          estimate: 2,
          labels: ['api', 'ui'],
          description: 'Line one\nline "two", with a comma',
          requestedBy: 'Olivia Owner',
          owners: ['Bob Member', 'Carol Viewer'],
          tasks: [
            { description: 'write tests', complete: true },
            { description: 'update docs, too', complete: false },
          ],
          comments: [
            { cell: 'Looks good, ship it (Bob Member - Feb 12, 2016)', text: 'Looks good, ship it', author: 'Bob Member', created_at: Date.UTC(2016, 1, 12) },
            { cell: 'plain note', text: 'plain note', author: null, created_at: null },
          ],
          blockers: [],
          createdAt: Date.UTC(2016, 1, 11),
          acceptedAt: Date.UTC(2016, 1, 14),
        },
      },
    ]);
  });

  it('reads a later export (Priority, Blocker pairs, ISO datetimes, integration columns, "Story" as the title)', () => {
    const csv = [
      'Id,Story,Labels,Type,Estimate,Priority,Current State,Created at,Accepted at,Deadline,Requested By,Owned By,Blocker,Blocker Status,Blocker,Blocker Status,Pull Request,Git Branch',
      '77,Release 1.0,,release,,p1 - High,unstarted,2023-03-14T09:30:00Z,,2023-04-01,Olivia Owner,,needs sign-off,unresolved,"legal, review",resolved,https://example.com/pr/1,main',
    ].join('\n');
    const { columns, results } = rows(csv);
    expect(columns.ignored).to.deep.equal(['Pull Request', 'Git Branch']);
    const [result] = results;
    expect(result).to.have.property('ok', true);
    expect(result!.ok && result!.row).to.deep.include({
      name: 'Release 1.0',
      storyType: 'release',
      priority: 'p1',
      currentState: 'unstarted',
      createdAt: Date.UTC(2023, 2, 14, 9, 30),
      deadline: Date.UTC(2023, 3, 1),
      blockers: [
        { description: 'needs sign-off', resolved: false },
        { description: 'legal, review', resolved: true },
      ],
      owners: [],
      labels: [],
    });
  });

  it('names every problem of a row and refuses a header without a title or with an unpaired status', () => {
    const { results } = rows('Title,Type,Estimate,Current State,Created at,Priority,Task,Task Status\n,saga,two,doing,"Feb 30, 2016",urgent,t,maybe\n');
    expect(results[0]).to.deep.equal({
      ok: false,
      record: 2,
      problems: [
        'Title is empty',
        'Estimate "two" is not a number',
        'Priority "urgent" is not p0, p1, p2, p3 or none',
        'Type "saga" is not one of feature, bug, chore, release, epic',
        'Current State "doing" is not one of unscheduled, unstarted, planned, started, finished, delivered, accepted, rejected',
        'Created at "Feb 30, 2016" is not a date',
        'Task Status "maybe" is not completed or not completed',
      ],
    });
    expect(() => pivotalColumns(['Id', 'Type'])).to.throw(PivotalHeaderError, /Title/);
    expect(() => pivotalColumns(['Title', 'Task Status'])).to.throw(PivotalHeaderError, /Task Status/);
    expect(() => pivotalColumns(['Title', 'Estimate', 'estimate'])).to.throw(PivotalHeaderError, /two/);
  });

  it("reads Tracker's date spellings as wall times in the project's zone", () => {
    const zone = 'America/Los_Angeles';
    expect(parsePivotalDate('Feb 11, 2016', zone)).to.equal(Date.UTC(2016, 1, 11, 8));
    expect(parsePivotalDate('Jul 4, 2016 3:05 PM', zone)).to.equal(Date.UTC(2016, 6, 4, 22, 5));
    expect(parsePivotalDate('Sept 9, 2019 12:00 AM', UTC)).to.equal(Date.UTC(2019, 8, 9));
    expect(parsePivotalDate('2016-02-11 15:04:05', zone)).to.equal(Date.UTC(2016, 1, 11, 23, 4, 5));
    expect(parsePivotalDate('2016-02-11T15:04:05+01:00', zone)).to.equal(Date.UTC(2016, 1, 11, 14, 4, 5));
    for (const bad of ['Feb 30, 2016', '11/02/2016', 'yesterday', 'Foo 1, 2016', '2016-13-01']) expect(parsePivotalDate(bad, UTC), bad).to.equal(null);
  });

  it('reads a row whose Type is epic as an epic row (any case), with no story type', () => {
    const { results } = rows('Id,Title,Labels,Type,Description,Comment\n900,Checkout,payments,Epic,The whole checkout,"go (Olivia Owner - 2016-03-01T10:00:00Z)"\n');
    expect(results[0]).to.deep.include({ ok: true });
    const row = results[0]!.ok ? results[0]!.row : null;
    expect(row).to.deep.include({ kind: 'epic', pivotalId: '900', name: 'Checkout', labels: ['payments'], description: 'The whole checkout' });
    expect(row).not.to.have.property('storyType');
    expect(row!.comments[0]).to.deep.include({ text: 'go', author: 'Olivia Owner', created_at: Date.UTC(2016, 2, 1, 10) });
  });

  it('keeps a comment whole when its trailing parentheses are not a signature', () => {
    expect(pivotalComment('see (the spec - section 2)', UTC)).to.deep.equal({ cell: 'see (the spec - section 2)', text: 'see (the spec - section 2)', author: null, created_at: null });
  });
});
