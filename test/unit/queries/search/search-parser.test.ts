import { expect } from 'chai';
import fc from 'fast-check';
import { DomainError } from '../../../../src/domain/errors.js';
import { parseSearchQuery } from '../../../../src/domain/search/search-parser.js';
import { printSearchQuery } from '../../../../src/domain/search/search-printer.js';
import type { SearchQuery } from '../../../../src/domain/search/search-ast.js';

const parse = (text: string): SearchQuery => parseSearchQuery(text, 'query');
const printed = (text: string): string => printSearchQuery(parse(text));

/** The 400 problem text of a query that must be refused, on the parameter the caller named. */
function problem(text: string, parameter = 'query'): string {
  try {
    parseSearchQuery(text, parameter);
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    const domain = error as DomainError;
    expect(domain.code).to.equal('invalid_parameter');
    expect(domain.details.validation_errors?.[0]?.field).to.equal(parameter);
    return domain.details.validation_errors![0]!.problem;
  }
  expect.fail(`${text} should be refused`);
}

describe('search query parser', () => {
  it('reads keyword terms into canonical values, aliases folded', () => {
    expect(parse('state:Started,ACCEPTED')).to.deep.equal({ kind: 'values', field: 'state', values: ['started', 'accepted'] });
    expect(parse('owned_by:"Anna Q"')).to.deep.equal({ kind: 'values', field: 'owner', values: ['anna q'] });
    expect(parse('requested_by:AQ')).to.deep.equal({ kind: 'values', field: 'requester', values: ['aq'] });
    expect(parse('epics:""')).to.deep.equal({ kind: 'values', field: 'epic', values: [''] });
    expect(parse('id:1,02')).to.deep.equal({ kind: 'numbers', field: 'id', numbers: [1, 2] });
    expect(parse('estimate:-1,0.5')).to.deep.equal({ kind: 'numbers', field: 'estimate', numbers: [-1, 0.5] });
    expect(parse('has:blockers,labels')).to.deep.equal({ kind: 'flags', field: 'has', flags: ['blocked', 'label'] });
    expect(parse('modified_since:-3days')).to.deep.equal({
      kind: 'date', field: 'updated', mode: 'since', span: { kind: 'single', at: { kind: 'ago', amount: 3, unit: 'day' } },
    });
    expect(parse('accepted:2024-01-01..')).to.deep.equal({
      kind: 'date', field: 'accepted', mode: 'on', span: { kind: 'range', from: { kind: 'day', date: '2024-01-01' }, to: null },
    });
    expect(parse('includedone:TRUE')).to.deep.equal({ kind: 'includedone', value: true });
  });

  it('reads free text: words, quoted phrases (literal) and a trailing * as a prefix', () => {
    expect(parse('log*')).to.deep.equal({ kind: 'text', word: { text: 'log', prefix: true } });
    expect(parse('"log*"')).to.deep.equal({ kind: 'text', word: { text: 'log*', prefix: false } });
    expect(parse('"state:x OR y"')).to.deep.equal({ kind: 'text', word: { text: 'state:x OR y', prefix: false } });
    expect(parse('12:30')).to.deep.equal({ kind: 'text', word: { text: '12:30', prefix: false } });
    expect(parse('   ')).to.equal(null);
  });

  it('evaluates AND, OR and spaces left to right with equal precedence; parentheses group', () => {
    const [a, b, c] = ['a', 'b', 'c'].map((text) => ({ kind: 'text', word: { text, prefix: false } }));
    expect(parse('a b OR c')).to.deep.equal({ kind: 'or', left: { kind: 'and', left: a, right: b }, right: c });
    expect(parse('a OR b c')).to.deep.equal({ kind: 'and', left: { kind: 'or', left: a, right: b }, right: c });
    expect(parse('a AND (b OR c)')).to.deep.equal({ kind: 'and', left: a, right: { kind: 'or', left: b, right: c } });
    expect(parse('-(a OR b)')).to.deep.equal({ kind: 'not', operand: { kind: 'or', left: a, right: b } });
    expect(parse('a and b')).to.deep.equal(parse('a AND and AND b'));
  });

  it('prints canonical text that parses back to the same AST', () => {
    expect(printed('state:started owner:AQ label:"jedi stuff" -type:chore')).to.equal(
      'state:started AND owner:aq AND label:"jedi stuff" AND -type:chore',
    );
    expect(printed('(type:bug OR type:chore) AND -has:owner')).to.equal('type:bug OR type:chore AND -has:owner');
    expect(printed('a (b OR c)')).to.equal('a AND (b OR c)');
    expect(printed('"-x" "AND" "foo*" "a:b" created_before:-5h')).to.equal('"-x" AND "AND" AND "foo*" AND "a:b" AND created_before:-5hours');
  });

  it('says what is wrong and where: unbalanced parentheses, dangling operators, bad values, quotes', () => {
    expect(problem('(state:started')).to.equal("Invalid search: this '(' is never closed (at character 1).");
    expect(problem('a b)')).to.equal("Invalid search: this ')' closes no '(' (at character 4).");
    expect(problem('a OR', 'filter')).to.equal('Invalid search: OR has nothing on its right (at character 3).');
    expect(problem('AND a')).to.match(/AND has nothing on its left \(at character 1\)/);
    expect(problem('a OR )')).to.match(/OR has nothing on its right/);
    expect(problem('()')).to.match(/empty parentheses \(at character 1\)/);
    expect(problem('a - b')).to.match(/'-' must be followed directly by a term .*character 3/);
    expect(problem('a colour:red')).to.equal('Invalid search: unknown search keyword "colour:" (at character 3).');
    expect(problem('id:12,x3')).to.match(/id: "x3" is not a story id .*character 7/);
    expect(problem('estimate:big')).to.match(/is not points/);
    expect(problem('state:done')).to.match(/state: "done" is not one of unscheduled, .*character 7/);
    expect(problem('type:epic')).to.match(/type: "epic" is not one of feature, bug, chore, release/);
    expect(problem('created:2024-02-30')).to.match(/created: "2024-02-30" is not a date .*character 9/);
    expect(problem('updated_since:-2x')).to.match(/is not a date/);
    for (const far of ['created:1899-12-31', 'created:0100-01-01', 'created:-99999y', 'created:-2400months', 'created:..-80000d']) {
      expect(problem(far), far).to.match(/is not a date/);
    }
    expect(parse('created:-200years..-73200d')).to.have.property('kind', 'date');
    expect(problem('accepted:..')).to.match(/is not a date/);
    expect(problem('created:2024-01-01,2024-01-02')).to.match(/takes one value, not a comma list \(at character 20\)/);
    expect(problem('name:"open ended')).to.equal('Invalid search: this double quote is never closed (at character 6).');
    expect(problem('ab"cd"')).to.match(/double quote in the middle of a word.*character 3/);
    expect(problem('"ab"cd')).to.match(/closing double quote must be followed by a space.*character 5/);
    expect(problem('label:')).to.match(/label: needs a value right after the colon/);
    expect(problem('state:a,,b')).to.match(/state: needs a value/);
    expect(problem('mywork:""')).to.match(/mywork: needs a value/);
    expect(problem('has:feelings')).to.match(/has: "feelings" is not one of/);
    expect(problem('is:owner')).to.match(/is: "owner" is not one of blocked, blocker, blockers, blocking, following/);
    expect(parse('review:Code')).to.deep.equal({ kind: 'values', field: 'review', values: ['code'] });
    expect(parse('review_status:PASS,in_review')).to.deep.equal({ kind: 'values', field: 'review_status', values: ['pass', 'in_review'] });
    expect(problem('a review_status:done')).to.match(/review_status: "done" is not one of unstarted, in_review, pass, revise \(at character 17\)/);
    expect(problem('reviewer:""')).to.match(/reviewer: needs a value/);
    expect(problem('integration:x')).to.match(/not supported: integrations/);
    expect(problem('*')).to.match(/'\*' needs at least one character/);
    expect(problem('""')).to.match(/empty quoted phrase/);
    expect(problem('ab\u0000c')).to.match(/control character .*character 3/);
    expect(problem('x \ud800')).to.match(/surrogate .*character 3/);
    expect(parse('"😀 ok"')).to.deep.equal({ kind: 'text', word: { text: '😀 ok', prefix: false } });
  });

  it('refuses to negate date terms and to put includedone: under OR or -', () => {
    expect(problem('-created:today')).to.match(/date terms cannot be negated \(at character 1\)/);
    expect(problem('a OR includedone:true')).to.match(/cannot be an alternative of OR \(at character 6\)/);
    expect(problem('-(a includedone:true)')).to.match(/cannot be negated/);
    expect(parse('(a OR b) includedone:true')).to.have.property('kind', 'and');
    expect(problem('-(created:today)')).to.match(/date terms cannot be negated/);
    expect(parse('-(a created:today)')).to.have.property('kind', 'not');
  });

  it('bounds length, terms and nesting: pathological queries are refused at once, never a stack overflow', () => {
    const deep = `${'('.repeat(5000)}a${')'.repeat(5000)}`;
    expect(problem(deep)).to.match(/parentheses nest at most 32 deep \(at character 33\)/);
    expect(problem('AND '.repeat(3000))).to.match(/AND has nothing on its left/);
    expect(problem('OR OR '.repeat(2000))).to.match(/OR has nothing on its left/);
    expect(problem('a OR '.repeat(2400))).to.match(/at most 200 terms/);
    expect(problem('-'.repeat(12000))).to.match(/'-' must be followed/);
    expect(problem(`"${'x'.repeat(12000)}`)).to.match(/never closed/);
    expect(problem('x'.repeat(20001))).to.match(/at most 20000 characters/);
    expect(parse(`${'('.repeat(32)}a${')'.repeat(32)}`)).to.deep.equal(parse('a'));
  });

  describe('properties (seeded)', () => {
    const alphabet = ['(', ')', '-', '"', ',', ':', '*', ' ', '.', 'AND', 'OR', 'a', 'b', 'state', 'label', 'id', 'has', 'no', 'is',
      'created', 'accepted_since', 'includedone', 'owner', 'name', 'estimate', 'started', 'feature', 'true', 'blocked', '2024-01-05',
      'today', '-2w', '..', '1', '-1', 'x y', 'É', '\t'];
    const queryish = fc.array(fc.constantFrom(...alphabet), { maxLength: 30 }).map((parts) => parts.join(''));
    const anyText = fc.oneof(queryish, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }));

    it('returns an AST or a 400 invalid_parameter problem on any string, never anything else', () => {
      fc.assert(
        fc.property(anyText, (text) => {
          try {
            parseSearchQuery(text, 'filter');
          } catch (error) {
            return error instanceof DomainError && error.code === 'invalid_parameter' && error.details.validation_errors?.[0]?.field === 'filter';
          }
          return true;
        }),
        { numRuns: 3000, seed: 20261123 },
      );
    });

    it('parses printed ASTs back to the same AST', () => {
      let parsedCount = 0;
      fc.assert(
        fc.property(queryish, (text) => {
          let ast: SearchQuery;
          try {
            ast = parse(text);
          } catch {
            return true;
          }
          parsedCount++;
          expect(parse(printSearchQuery(ast)), `${text} -> ${printSearchQuery(ast)}`).to.deep.equal(ast);
          return true;
        }),
        { numRuns: 3000, seed: 20261123 },
      );
      expect(parsedCount, 'enough generated queries parse for the property to mean something').to.be.greaterThan(300);
    });
  });
});
