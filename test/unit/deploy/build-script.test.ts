// scripts/build.mjs, what `npm start` runs first: it compiles only when a source is newer than the last
// build, and an install that ships only dist/ (the container image) starts without TypeScript; with a
// web/ folder it also type-checks and bundles the board into dist/web. Run on a copy of the script in a
// scratch project whose "compiler" and "bundler" only record their runs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';

const buildScript = fileURLToPath(new URL('../../../../scripts/build.mjs', import.meta.url));

/**
 * A compiler stand-in: appends a line per run to compiled.log (`run` for the project, `web` for
 * web/tsconfig.json) and writes dist/, or fails when told to.
 */
const fakeCompiler = `
const { appendFileSync, mkdirSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const target = process.argv[process.argv.length - 1];
const web = target.endsWith('tsconfig.json');
const root = web ? join(target, '..', '..') : target;
if (existsSync(join(root, web ? 'fail-web-check' : 'fail-compile'))) process.exit(2);
appendFileSync(join(root, 'compiled.log'), web ? 'web\\n' : 'run\\n');
mkdirSync(join(root, 'dist'), { recursive: true });
`;

/** An esbuild stand-in: writes a fingerprinted entry script, a chunk and a style sheet where asked and reports them. */
const fakeEsbuild = `
const { appendFileSync, mkdirSync, writeFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
exports.build = async function build(options) {
  const root = options.absWorkingDir;
  if (existsSync(join(root, 'fail-bundle'))) throw new Error('bundle failed');
  appendFileSync(join(root, 'bundled.log'), JSON.stringify(options.entryPoints) + '\\n');
  mkdirSync(options.outdir, { recursive: true });
  writeFileSync(join(options.outdir, 'app-ABC123.js'), 'console.log("board")');
  writeFileSync(join(options.outdir, 'app-DEF456.css'), 'body{}');
  writeFileSync(join(options.outdir, 'chunk-GHI789.js'), 'export const app = 1;');
  const outputs = ['app-ABC123.js', 'app-DEF456.css', 'chunk-GHI789.js'].map((name) => join(options.outdir, name));
  return { metafile: { outputs: Object.fromEntries(outputs.map((path) => [path, {}])) } };
};
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
    mkdirSync(join(project, 'node_modules', 'esbuild', 'lib'), { recursive: true });
    writeFileSync(join(project, 'node_modules', 'esbuild', 'lib', 'main.js'), fakeEsbuild);
  });

  /** Gives the scratch project a board: web/tsconfig.json, web/index.html and web/src/main.tsx. */
  const addWeb = () => {
    mkdirSync(join(project, 'web', 'src'), { recursive: true });
    writeFileSync(join(project, 'web', 'tsconfig.json'), '{}\n');
    writeFileSync(join(project, 'web', 'index.html'), '<link href="%STYLE%"><script type="module" src="%SCRIPT%"></script>\n%PRELOADS%\n');
    writeFileSync(join(project, 'web', 'src', 'main.tsx'), 'export {};\n');
  };
  const runs = () => (existsSync(join(project, 'compiled.log')) ? readFileSync(join(project, 'compiled.log'), 'utf8').split('\n').filter(Boolean) : []);
  const bundles = () => (existsSync(join(project, 'bundled.log')) ? readFileSync(join(project, 'bundled.log'), 'utf8').split('\n').filter(Boolean).length : 0);
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  const build = (...args: string[]) => spawnSync(process.execPath, [join(project, 'scripts', 'build.mjs'), ...args], { encoding: 'utf8' });
  const compilations = () => runs().filter((line) => line === 'run').length;
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

  it('type-checks and bundles the board into dist/web: fingerprinted names in index.html (chunks preloaded), a gzip twin of each asset, a manifest', () => {
    addWeb();
    const result = build();
    expect(result.status, result.stderr).to.equal(0);
    expect(runs()).to.deep.equal(['run', 'web']);
    expect(bundles()).to.equal(1);
    const web = join(project, 'dist', 'web');
    expect(readFileSync(join(web, 'index.html'), 'utf8')).to.equal(
      '<link href="/assets/app-DEF456.css"><script type="module" src="/assets/app-ABC123.js"></script>\n<link rel="modulepreload" href="/assets/chunk-GHI789.js">\n',
    );
    expect(gunzipSync(readFileSync(join(web, 'assets', 'app-ABC123.js.gz'))).toString()).to.equal('console.log("board")');
    const manifest = JSON.parse(readFileSync(join(web, 'manifest.json'), 'utf8'));
    expect(manifest).to.include({ index: 'index.html', script: 'app-ABC123.js', style: 'app-DEF456.css' });
    expect(manifest.assets.map((asset: { name: string; type: string }) => [asset.name, asset.type])).to.deep.equal([
      ['app-ABC123.js', 'text/javascript; charset=utf-8'],
      ['app-DEF456.css', 'text/css; charset=utf-8'],
      ['chunk-GHI789.js', 'text/javascript; charset=utf-8'],
    ]);
  });

  it('counts the sources of the board as inputs: a change under web/ builds again', () => {
    addWeb();
    for (const path of ['src/main.ts', 'tsconfig.json', 'web/tsconfig.json', 'web/index.html', 'web/src/main.tsx']) age(path, 60);
    build('--if-stale');
    age('dist/.build-stamp', 30);
    build('--if-stale');
    expect(bundles()).to.equal(1);
    writeFileSync(join(project, 'web', 'src', 'main.tsx'), 'export const changed = 1;\n');
    build('--if-stale');
    expect(bundles()).to.equal(2);
    expect(compilations()).to.equal(2);
  });

  it('fails, leaving no stamp, when the board does not type-check or does not bundle', () => {
    addWeb();
    writeFileSync(join(project, 'fail-web-check'), '');
    expect(build().status).to.equal(2);
    expect(existsSync(join(project, 'dist', '.build-stamp'))).to.equal(false);
    rmSync(join(project, 'fail-web-check'));
    writeFileSync(join(project, 'fail-bundle'), '');
    expect(build().status).to.not.equal(0);
    expect(existsSync(join(project, 'dist', '.build-stamp'))).to.equal(false);
    expect(bundles()).to.equal(0);
  });
});
