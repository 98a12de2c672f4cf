// The README is the front door to docs/: every relative link in README.md, docs/*.md and
// src/api/conventions.md must name a file that exists (and, with `#anchor`, a heading of that file, as
// GitHub makes anchors of headings), and every file of docs/ must be reachable from the README.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { marked, type Token } from 'marked';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const documents = ['README.md', 'src/api/conventions.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

function tokensOf(file: string): Token[] {
  const tokens: Token[] = [];
  marked.walkTokens(marked.lexer(readFileSync(file, 'utf8')), (token) => {
    tokens.push(token);
  });
  return tokens;
}

/** The relative targets of a document's links and images (web addresses, mail and bare anchors of other schemes left out). */
function relativeLinks(file: string): string[] {
  return tokensOf(file)
    .filter((token): token is Token & { href: string } => (token.type === 'link' || token.type === 'image') && typeof token['href'] === 'string')
    .map((token) => token.href)
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('//'));
}

/** GitHub's anchor of a heading: its text lower-cased, punctuation dropped, spaces made hyphens; repeats get -1, -2, ... */
function headingAnchors(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const token of tokensOf(file)) {
    if (token.type !== 'heading') continue;
    const text = String(token['text'])
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*_]/g, '');
    const base = text.toLowerCase().trim().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const href of relativeLinks(file)) {
    const [target = '', anchor] = href.split('#', 2);
    const linked = target === '' ? file : resolve(dirname(file), decodeURI(target));
    if (!existsSync(linked)) {
      broken.push(`${href} (no such file)`);
      continue;
    }
    if (anchor !== undefined && statSync(linked).isFile() && linked.endsWith('.md')) {
      if (!headingAnchors(linked).has(anchor)) broken.push(`${href} (no such heading)`);
    }
  }
  return broken;
}

describe('markdown links of the README and docs/', () => {
  for (const path of documents) {
    it(`${path}: every relative link names an existing file and heading`, () => {
      expect(brokenLinks(join(root, path))).to.deep.equal([]);
    });
  }

  it('README.md links every file of docs/', () => {
    const linked = new Set(relativeLinks(join(root, 'README.md')).map((href) => href.split('#', 1)[0]));
    const docs = documents.filter((path) => path.startsWith('docs/'));
    expect(docs.filter((path) => !linked.has(path))).to.deep.equal([]);
  });

  it('tells a missing file and a missing heading from good links, with GitHub\'s anchors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'storyline-links-'));
    try {
      writeFileSync(join(dir, 'other.md'), '# Time travel (`npm run bench -- time-travel`)\n\n## Notes\n\n## Notes\n');
      writeFileSync(
        join(dir, 'index.md'),
        [
          '# Start here',
          '[ok](other.md#time-travel-npm-run-bench----time-travel) [second notes](other.md#notes-1) [self](#start-here)',
          '[gone](missing.md) [no heading](other.md#nowhere) [web](https://example.com/x.md) ![img](other.md)',
        ].join('\n\n'),
      );
      expect(brokenLinks(join(dir, 'index.md'))).to.deep.equal(['missing.md (no such file)', 'other.md#nowhere (no such heading)']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
