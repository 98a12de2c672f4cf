#!/usr/bin/env node
// `npm run build`: compiles the TypeScript into dist/, builds the board (web/) into dist/web/, and stamps
// the build. With `--if-stale` (what `npm start` runs first) it builds only when a source is newer than
// the stamp, so a restart of a current build starts at once; where no sources are present (an image or
// package that ships only dist/) the shipped build is used as it is and TypeScript is never needed.
//
// The board: web/tsconfig.json is type-checked (no output), then esbuild bundles web/src/main.tsx, the
// chunks it imports and its CSS into dist/web/assets/ under fingerprinted names (each with a gzip twin),
// and writes dist/web/index.html from web/index.html with those names (the chunks as modulepreload
// links), and dist/web/manifest.json listing them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
/** What a build reads: the folders tsconfig.json and web/tsconfig.json include, and the files that change how it compiles. */
const sourceDirs = ['src', 'test', 'bench', 'web'];
const sourceFiles = ['tsconfig.json', 'package.json', 'package-lock.json'];
const webDir = join(root, 'web');
const webOut = join(root, 'dist', 'web');
/** Media types of what the board's bundle holds. */
const assetTypes = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json; charset=utf-8' };

function newestSourceTime() {
  let newest = 0;
  let found = false;
  const visit = (path) => {
    const info = statSync(path);
    if (info.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
      return;
    }
    found = true;
    newest = Math.max(newest, info.mtimeMs);
  };
  for (const dir of sourceDirs) if (existsSync(join(root, dir))) visit(join(root, dir));
  for (const file of sourceFiles) {
    const path = join(root, file);
    if (existsSync(path)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return found ? newest : null;
}

function isCurrent() {
  if (!existsSync(stamp)) return !existsSync(join(root, 'src')) && existsSync(join(root, 'dist'));
  const newest = newestSourceTime();
  return newest === null || newest <= statSync(stamp).mtimeMs;
}

if (process.argv.includes('--if-stale') && isCurrent()) process.exit(0);

// The stamp carries the time the build started: a source saved while it compiled is newer, so the next
// `--if-stale` builds again.
const started = new Date();

const compiler = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(compiler)) {
  console.error('build: the TypeScript compiler is not installed; run npm install first');
  process.exit(1);
}
rmSync(stamp, { force: true });
const compiled = spawnSync(process.execPath, [compiler, '-p', root], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
if (existsSync(webDir)) {
  const checked = spawnSync(process.execPath, [compiler, '-p', join(webDir, 'tsconfig.json')], { stdio: 'inherit' });
  if (checked.status !== 0) process.exit(checked.status ?? 1);
  await buildWeb();
}
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);

async function buildWeb() {
  const esbuildEntry = join(root, 'node_modules', 'esbuild', 'lib', 'main.js');
  if (!existsSync(esbuildEntry)) {
    console.error('build: esbuild is not installed; run npm install first');
    process.exit(1);
  }
  const { build } = await import(pathToFileURL(esbuildEntry).href);
  rmSync(webOut, { recursive: true, force: true });
  const assetsDir = join(webOut, 'assets');
  mkdirSync(assetsDir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: join(webDir, 'src', 'main.tsx') },
    bundle: true,
    minify: process.env['STORYLINE_WEB_MINIFY'] !== '0',
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    // The app's code is a chunk main.tsx imports once the first requests are sent (web/src/boot.ts).
    splitting: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.startsWith('app-') && name.endsWith('.js'));
  const style = outputs.find((name) => name.startsWith('app-') && name.endsWith('.css'));
  if (!script || !style) {
    console.error(`build: the board bundle lacks its script or style sheet (${outputs.join(', ')})`);
    process.exit(1);
  }
  // Every chunk is fetched with the entry (modulepreload), not after it asks for them.
  const chunks = outputs.filter((name) => name.endsWith('.js') && name !== script).sort();
  const preloads = chunks.map((name) => `<link rel="modulepreload" href="/assets/${name}">`).join('\n');
  const template = readFileSync(join(webDir, 'index.html'), 'utf8');
  const index = template.replaceAll('%SCRIPT%', `/assets/${script}`).replaceAll('%STYLE%', `/assets/${style}`).replaceAll('%PRELOADS%', preloads);
  writeFileSync(join(webOut, 'index.html'), index);
  const assets = [];
  for (const name of readdirSync(assetsDir).sort()) {
    const extension = Object.keys(assetTypes).find((suffix) => name.endsWith(suffix)) ?? null;
    const bytes = readFileSync(join(assetsDir, name));
    const gzip = gzipSync(bytes, { level: 9 });
    writeFileSync(join(assetsDir, `${name}.gz`), gzip);
    assets.push({ name, type: extension ? assetTypes[extension] : 'text/plain; charset=utf-8', bytes: bytes.length, gzip_bytes: gzip.length });
  }
  writeFileSync(join(webOut, 'manifest.json'), `${JSON.stringify({ index: 'index.html', script, style, assets }, null, 2)}\n`);
  const scriptGzip = assets.filter((asset) => asset.name.endsWith('.js')).reduce((sum, asset) => sum + asset.gzip_bytes, 0);
  console.log(`build: board bundle in ${relative(root, webOut)} (${script}, ${style}; JavaScript ${(scriptGzip / 1024).toFixed(1)} KiB gzipped)`);
}
