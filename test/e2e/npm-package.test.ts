// The published package (what `npm pack` makes of this checkout, with the build the suite runs from): it
// holds the built server, the board's built assets and no TypeScript, and started from its unpacked files
// with the production dependencies only (TypeScript out of its reach) it serves the API, the reference
// and the board; `npm start`'s first step (`build.mjs --if-stale`) leaves its shipped build as it is.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { packageRoot, productionDependencies, serve, stop, stopAll } from './storyline-process.js';

describe('the npm package', function () {
  this.timeout(120_000);
  let dir: string;
  let unpacked: string;
  let files: string[];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-package-'));
    // --ignore-scripts: packing would otherwise rebuild (prepare) the dist/ the suite runs from.
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: packageRoot, encoding: 'utf8' })) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = packed[0]!.files.map((file) => file.path);
    execFileSync('tar', ['-xzf', join(dir, packed[0]!.filename), '-C', dir]);
    unpacked = join(dir, 'package');
    for (const dependency of productionDependencies()) {
      mkdirSync(dirname(join(unpacked, dependency)), { recursive: true });
      symlinkSync(join(packageRoot, dependency), join(unpacked, dependency), 'dir');
    }
  });
  after(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the built server and board, and no TypeScript, tests or benchmarks', () => {
    expect(files).to.include.members(['package.json', 'bin/storyline.js', 'dist/src/infra/cli/main.js', 'dist/web/index.html', 'dist/web/manifest.json', 'scripts/build.mjs']);
    expect(files.filter((path) => /\.tsx?$/.test(path) || /^(src|test|bench|web|dist\/test|dist\/bench)\//.test(path))).to.deep.equal([]);
  });

  it('starts with production dependencies only, without a rebuild, and serves the API, the reference and the board', async () => {
    expect(() => createRequire(join(unpacked, 'package.json')).resolve('typescript')).to.throw(/Cannot find module/);
    const shipped = readdirSync(join(unpacked, 'dist'));
    const prestart = await promisify(execFile)('npm', ['run', '--silent', 'prestart'], { cwd: unpacked });
    expect(prestart.stderr).to.equal('');
    expect(readdirSync(join(unpacked, 'dist'))).to.deep.equal(shipped);

    const served = await serve({ STORYLINE_DATA: join(dir, 'data') }, { bin: join(unpacked, 'bin', 'storyline.js') });
    const get = (path: string) => fetch(`http://127.0.0.1:${served.port}${path}`);
    expect((await get('/health')).status).to.equal(200);
    const reference = await get('/services/v5/openapi.json');
    expect(reference.status).to.equal(200);
    expect(((await reference.json()) as { openapi: string }).openapi).to.equal('3.1.0');
    expect((await get('/docs')).status).to.equal(200);
    const manifest = JSON.parse(readFileSync(join(unpacked, 'dist', 'web', 'manifest.json'), 'utf8')) as { assets: Array<{ name: string }> };
    expect((await get(`/assets/${manifest.assets[0]!.name}`)).status).to.equal(200);
    expect(await stop(served)).to.equal(0);
  });
});
