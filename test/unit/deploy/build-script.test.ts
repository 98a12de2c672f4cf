// scripts/build.mjs, what `npm start` runs first: it compiles only when a source is newer than the last
// build, and an install that ships only dist/ (the container image) starts without TypeScript. Run on a
// copy of the script in a scratch project whose "compiler" only counts its runs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const buildScript = fileURLToPath(new URL('../../../../scripts/build.mjs', import.meta.url));

/** A compiler stand-in: appends a line per run to compiled.log and writes dist/, or fails when told to. */
const fakeCompiler = `
const { appendFileSync, mkdirSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const root = process.argv[process.argv.length - 1];
if (existsSync(join(root, 'fail-compile'))) process.exit(2);
appendFileSync(join(root, 'compiled.log'), 'run\\n');
mkdirSync(join(root, 'dist'), { recursive: true });
`;

describe('scripts/build.mjs', () => {
  let project: string;

  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'storyline-build-script-'));
    mkdirSync(join(project, 'scripts'));
    copyFileSync(buildScript, join(project, 'scripts', 'build.mjs'));
    mkdirSync(join(project, 'node_modules', 'typescript', 'bin'), { recursive: true });
    writeFileSync(join(project, 'node_modules', 'typescript', 'bin', 'tsc'), fakeCompiler);
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'main.ts'), 'export {};\n');
    writeFileSync(join(project, 'tsconfig.json'), '{}\n');
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  const build = (...args: string[]) => spawnSync(process.execPath, [join(project, 'scripts', 'build.mjs'), ...args], { encoding: 'utf8' });
  const compilations = () => (existsSync(join(project, 'compiled.log')) ? readFileSync(join(project, 'compiled.log'), 'utf8').split('\n').filter(Boolean).length : 0);
  const age = (path: string, seconds: number) => {
    const when = new Date(Date.now() - seconds * 1000);
    utimesSync(join(project, path), when, when);
  };

  it('compiles when there is no build, then not again while the sources are older than the build', () => {
    expect(build('--if-stale').status).to.equal(0);
    expect(compilations()).to.equal(1);
    expect(existsSync(join(project, 'dist', '.build-stamp'))).to.equal(true);
    age('src/main.ts', 60);
    age('tsconfig.json', 60);
    expect(build('--if-stale').status).to.equal(0);
    expect(compilations()).to.equal(1);
  });

  it('compiles again when a source or the compiler settings changed after the build', () => {
    age('src/main.ts', 60);
    age('tsconfig.json', 60);
    build('--if-stale');
    age('dist/.build-stamp', 30);
    writeFileSync(join(project, 'src', 'main.ts'), 'export const changed = 1;\n');
    build('--if-stale');
    expect(compilations()).to.equal(2);
    age('src/main.ts', 60);
    age('dist/.build-stamp', 30);
    writeFileSync(join(project, 'tsconfig.json'), '{"compilerOptions":{}}\n');
    build('--if-stale');
    expect(compilations()).to.equal(3);
  });

  it('always compiles without --if-stale', () => {
    build();
    build();
    expect(compilations()).to.equal(2);
  });

  it('starts a shipped build without sources and without a compiler', () => {
    rmSync(join(project, 'src'), { recursive: true });
    rmSync(join(project, 'node_modules'), { recursive: true });
    mkdirSync(join(project, 'dist'));
    const result = build('--if-stale');
    expect(result.status, result.stderr).to.equal(0);
    expect(compilations()).to.equal(0);
  });

  it('fails, leaving no stamp, when the compiler fails', () => {
    writeFileSync(join(project, 'fail-compile'), '');
    expect(build('--if-stale').status).to.equal(2);
    expect(existsSync(join(project, 'dist', '.build-stamp'))).to.equal(false);
  });

  it('says what to do when no compiler is installed', () => {
    rmSync(join(project, 'node_modules'), { recursive: true });
    const result = build('--if-stale');
    expect(result.status).to.equal(1);
    expect(result.stderr).to.contain('npm install');
  });
});
