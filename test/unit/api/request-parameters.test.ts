// The one datetime parser and the one page reader every route uses: what they accept, what they refuse
// (400 invalid_parameter naming the parameter), and that a datetime without an offset is UTC whatever
// the server's zone.
import { expect } from 'chai';
import { datetimeParameter } from '../../../src/api/datetime-parameter.js';
import { pageParams } from '../../../src/api/page-params.js';
import { DomainError } from '../../../src/domain/errors.js';

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('datetime parameter', () => {
  const zone = process.env['TZ'];
  afterEach(() => {
    if (zone === undefined) delete process.env['TZ'];
    else process.env['TZ'] = zone;
  });

  it('reads integer ms, dates (UTC midnight) and datetimes with Z or an offset', () => {
    expect(datetimeParameter('t', 1_700_000_000_000)).to.equal(1_700_000_000_000);
    expect(datetimeParameter('t', '1700000000000')).to.equal(1_700_000_000_000);
    expect(datetimeParameter('t', '2024-01-31')).to.equal(Date.UTC(2024, 0, 31));
    expect(datetimeParameter('t', '2024-01-31T09:30:00Z')).to.equal(Date.UTC(2024, 0, 31, 9, 30));
    expect(datetimeParameter('t', '2024-01-31T09:30:00.250+01:00')).to.equal(Date.UTC(2024, 0, 31, 8, 30, 0, 250));
    expect(datetimeParameter('t', '2024-01-31T09:30-0130')).to.equal(Date.UTC(2024, 0, 31, 11, 0));
    expect(datetimeParameter('t', null)).to.equal(null);
  });

  it('reads a datetime without offset as UTC, never in the server zone', () => {
    for (const tz of ['Pacific/Auckland', 'America/Los_Angeles', 'UTC']) {
      process.env['TZ'] = tz;
      expect(datetimeParameter('t', '2024-07-01T12:00:00'), tz).to.equal(Date.UTC(2024, 6, 1, 12));
    }
  });

  it('refuses anything else, naming the parameter', () => {
    for (const bad of ['yesterday', '2024-02-30', '2024-13-01', '2024-01-31T25:00:00Z', '2024-01-31T10:00:00+24:00', '', true, 1.5]) {
      const error = refusal(() => datetimeParameter('created_after', bad));
      expect(error.code, String(bad)).to.equal('invalid_parameter');
      expect(error.details.validation_errors?.[0]?.field).to.equal('created_after');
    }
  });
});

describe('page parameters', () => {
  it('defaults to 100 from 0, reduces limits above 500, allows limit 0', () => {
    expect(pageParams({})).to.deep.equal({ limit: 100, offset: 0 });
    expect(pageParams({ limit: '10000', offset: '7' })).to.deep.equal({ limit: 500, offset: 7 });
    expect(pageParams({ limit: '0' })).to.deep.equal({ limit: 0, offset: 0 });
  });

  it('refuses non-integers and negatives with one problem per parameter', () => {
    const error = refusal(() => pageParams({ limit: 'ten', offset: '-1' }));
    expect(error.code).to.equal('invalid_parameter');
    expect(error.details.validation_errors).to.deep.equal([
      { field: 'limit', problem: "'limit' must be an integer value" },
      { field: 'offset', problem: "'offset' must be at least 0" },
    ]);
  });
});
