// The analytics CSV renderers: spec columns, seconds, quoting, label names and one Owned By column per owner.
import { expect } from 'chai';
import { cycleTimeDetails } from '../../../src/domain/iteration/cycle-time.js';
import { cycleTimeDetailsCsv } from '../../../src/queries/analytics/analytics-csv.js';

describe('analytics CSV', () => {
  it('quotes fields that need it, names labels and owners, and widens the Owned By columns to the most owners', () => {
    const story = (id: number, name: string, owner_ids: number[]) => ({
      story: { id, name, current_state: 'started' as const, story_type: 'bug' as const, owner_ids, label_ids: [7, 8] },
      details: cycleTimeDetails(id, [{ state: 'started', occurred_at: 0 }], 90_400),
    });
    const csv = cycleTimeDetailsCsv([story(1, 'Fix "login", again', [1, 2, 3]), story(2, 'Plain', [])], {
      labelName: new Map([[7, 'ux'], [8, 'api']]),
      personName: new Map([[1, 'Ada'], [2, 'Bo'], [3, 'Cy']]),
    }).split('\r\n');
    expect(csv[0]!.endsWith('Rejected Count,Owned By,Owned By,Owned By')).to.equal(true);
    expect(csv[1]).to.equal('started,bug,,"Fix ""login"", again",1,"ux, api",90,90,1,0,0,0,0,0,0,Ada,Bo,Cy');
    expect(csv[2]).to.equal('started,bug,,Plain,2,"ux, api",90,90,1,0,0,0,0,0,0,,,');
    expect(csv[3]).to.equal('');
  });
});
