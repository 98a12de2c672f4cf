import { expect } from 'chai';
import { compileStorySearch, type SearchContext } from '../../../../src/queries/search/search-compiler.js';
import { intervalOf } from '../../../../src/domain/search/search-dates.js';
import { parseSearchQuery } from '../../../../src/domain/search/search-parser.js';
import { textLookup, textPattern } from '../../../../src/queries/search/search-text-pattern.js';
import { compileStorySearch as compileWith, textKey } from '../../../../src/queries/search/search-compiler.js';

const context: SearchContext = {
  projectId: 9,
  searcherId: null,
  now: Date.parse('2024-03-10T15:00:00Z'),
  timeZone: 'America/New_York',
  doneBefore: Date.parse('2024-03-04T05:00:00Z'),
  names: { labelIds: new Map(), epicLabelIds: new Map(), allEpicLabelIds: [], people: new Map(), blockedStoryIds: [], storyIdsWithAttachments: [], storyIdsByText: new Map(), storyIdsByReview: new Map() },
};
const compile = (text: string) => compileStorySearch(parseSearchQuery(text, 'query'), context);

describe('search compiler', () => {
  it('compiles to one plain JSON document per query, plain fields first, the done exclusion apart', () => {
    const done = { $nor: [{ current_state: 'accepted', accepted_at: { $lt: context.doneBefore } }] };
    const text = (field: string) => ({ id: { $in: [] }, [field]: { $regex: textPattern({ text: 'a.b', prefix: false }), $options: 'i' } });
    const { filter, filterWithDone } = compile('state:started OR -label:x "a.b"');
    expect(JSON.parse(JSON.stringify(filter))).to.deep.equal(filter);
    expect(filterWithDone).to.deep.equal({
      project_id: 9,
      $and: [{ $or: [{ current_state: { $in: ['started'] } }, { label_ids: { $nin: [] } }] }, { $or: [text('name'), text('description')] }],
    });
    expect(filter).to.deep.equal({ ...filterWithDone, $and: [...(filterWithDone.$and as unknown[]), done] });
    expect(compile('type:feature -state:accepted -has:label').filterWithDone).to.deep.equal({
      project_id: 9, story_type: { $in: ['feature'] }, current_state: { $nin: ['accepted'] }, $and: [{ $nor: [{ label_ids: { $exists: true, $ne: [] } }] }],
    });
    expect(compile('state:started state:finished').filterWithDone).to.deep.equal({
      project_id: 9, current_state: { $in: ['started'] }, $and: [{ current_state: { $in: ['finished'] } }],
    });
    expect(compile('')).to.deep.equal({
      filter: { project_id: 9, $and: [done] },
      filterWithDone: { project_id: 9 },
      doneFilter: { current_state: 'accepted', accepted_at: { $lt: context.doneBefore }, project_id: 9 },
    });
    expect(compile('state:accepted label:x').doneFilter).to.deep.equal({
      current_state: 'accepted', accepted_at: { $lt: context.doneBefore }, project_id: 9, label_ids: { $in: [] }, $and: [{ current_state: { $in: ['accepted'] } }],
    });
    expect(compile('state:started').doneFilter).to.equal(null);
    expect(compile('includedone:true').filter).to.deep.equal({ project_id: 9 });
    // A state condition that leaves accepted stories out makes the done exclusion redundant.
    expect(compile('state:started').filter).to.deep.equal({ project_id: 9, current_state: { $in: ['started'] } });
    expect(compile('-state:accepted').filter).to.deep.equal({ project_id: 9, current_state: { $nin: ['accepted'] } });
    expect(compile('state:started,accepted').filter).to.have.property('$and');
  });

  it('matches text literally, whole words only, case-insensitively', () => {
    const matches = (word: string, prefix: boolean, text: string) => new RegExp(textPattern({ text: word, prefix }), 'i').test(text);
    expect(matches('c++', false, 'Port to C++ now')).to.equal(true);
    expect(matches('c++', false, 'cc++')).to.equal(false);
    expect(matches('a.b', false, 'axb')).to.equal(false);
    expect(matches('(x)', false, 'see (x) here')).to.equal(true);
    expect(matches('log', false, 'Logging')).to.equal(false);
    expect(matches('log', true, 'Logging')).to.equal(true);
    expect(matches('log', true, 'catalog')).to.equal(false);
    expect(matches('café', false, 'Le CAFÉ ouvert')).to.equal(true);
    expect(matches('caf', true, 'café')).to.equal(true);
    expect(matches('caf', false, 'café')).to.equal(false);
    expect(matches('magic  links', false, 'magic\nlinks')).to.equal(true);
  });

  it('asks the text index for the whole words of a term, and for its last word’s beginning after a *', () => {
    expect(textLookup({ text: 'Webhook', prefix: false })).to.deep.equal({ words: ['WEBHOOK'], prefix: null, exact: true });
    expect(textLookup({ text: 'web', prefix: true })).to.deep.equal({ words: [], prefix: 'WEB', exact: true });
    expect(textLookup({ text: 'magic  links', prefix: false })).to.deep.equal({ words: ['MAGIC', 'LINKS'], prefix: null, exact: false });
    expect(textLookup({ text: 'c++', prefix: true })).to.deep.equal({ words: ['C'], prefix: null, exact: false });
    expect(textLookup({ text: 'log-in', prefix: true })).to.deep.equal({ words: ['LOG'], prefix: 'IN', exact: false });
    expect(textLookup({ text: '++', prefix: false })).to.equal(null);
  });

  it('compiles text terms to the stories the index names, the pattern checking only those when the term is more than one word', () => {
    const names = {
      ...context.names,
      storyIdsByText: new Map([
        [textKey('name', { text: 'webhook', prefix: false }), [1, 2]],
        [textKey('description', { text: 'webhook', prefix: false }), [2, 3]],
        [textKey('name', { text: 'magic links', prefix: false }), [4]],
      ]),
    };
    const compileText = (text: string) => compileWith(parseSearchQuery(text, 'query'), { ...context, names, doneBefore: null }).filter;
    expect(compileText('webhook')).to.deep.equal({ project_id: 9, id: { $in: [1, 2, 3] } });
    expect(compileText('state:started OR state:finished')).to.deep.equal({ project_id: 9, current_state: { $in: ['started', 'finished'] } });
    expect(compileText('name:"magic links"')).to.deep.equal({
      project_id: 9, id: { $in: [4] }, name: { $regex: textPattern({ text: 'magic links', prefix: false }), $options: 'i' },
    });
    // A term the index cannot name (no word in it) is read from the text, and a term it has no entry for matches nothing.
    expect(compileText('description:"++"')).to.deep.equal({ project_id: 9, description: { $regex: textPattern({ text: '++', prefix: false }), $options: 'i' } });
    expect(compileText('name:unknown')).to.deep.equal({ project_id: 9, id: { $in: [] } });
  });

  it('takes local days in the searcher’s zone, daylight-saving days included', () => {
    const clock = { now: context.now, timeZone: 'America/New_York' };
    const dstDay = intervalOf({ kind: 'day', date: '2024-03-10' }, clock);
    expect(new Date(dstDay.start).toISOString()).to.equal('2024-03-10T05:00:00.000Z');
    expect(new Date(dstDay.end).toISOString()).to.equal('2024-03-11T04:00:00.000Z');
    expect(intervalOf({ kind: 'today' }, clock)).to.deep.equal(dstDay);
    expect(new Date(intervalOf({ kind: 'ago', amount: 1, unit: 'month' }, { now: Date.parse('2024-03-31T12:00:00Z'), timeZone: 'Etc/UTC' }).start).toISOString())
      .to.equal('2024-02-29T00:00:00.000Z');
    expect(intervalOf({ kind: 'ago', amount: 5, unit: 'hour' }, clock)).to.deep.equal({ start: context.now - 5 * 3_600_000, end: context.now - 4 * 3_600_000 });
  });

  it('takes an hour term as the local clock hour that many hours back, in zones half an hour off too', () => {
    const kolkata = { now: Date.parse('2024-03-10T15:20:00Z'), timeZone: 'Asia/Kolkata' }; // 20:50 there
    const hourBack = intervalOf({ kind: 'ago', amount: 1, unit: 'hour' }, kolkata);
    expect([new Date(hourBack.start).toISOString(), new Date(hourBack.end).toISOString()]).to.deep.equal(['2024-03-10T13:30:00.000Z', '2024-03-10T14:30:00.000Z']);
    const utc = intervalOf({ kind: 'ago', amount: 2, unit: 'hour' }, { now: Date.parse('2024-03-10T15:59:59Z'), timeZone: 'Etc/UTC' });
    expect(new Date(utc.start).toISOString()).to.equal('2024-03-10T13:00:00.000Z');
  });
});
