// A merge left unresolved must not land: no tracked text file holds a conflict marker line.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';

const MARKER = /^(<{7}|={7}|>{7})( |$)/m;

describe('repository', () => {
  it('holds no merge conflict markers in tracked text files', () => {
    const files = execFileSync('git', ['ls-files', '*.ts', '*.md', '*.json', '*.mjs', '*.js', '*.yml', '*.sh'], { encoding: 'utf8' })
      .split('\n')
      .filter((file) => file !== '');
    expect(files.length).to.be.greaterThan(0);
    const marked = files.filter((file) => MARKER.test(readFileSync(file, 'utf8')));
    expect(marked).to.deep.equal([]);
  });
});
