#!/usr/bin/env node
// `npm run build`: compiles the TypeScript into dist/ and stamps the build. With `--if-stale` (what
// `npm start` runs first) it compiles only when a source is newer than the stamp, so a restart of a
// current build starts at once; where no sources are present (an image or package that ships only
// dist/) the shipped build is used as it is and TypeScript is never needed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
/** What a build reads: the folders tsconfig.json includes and the files that change how it compiles. */
const sourceDirs = ['src', 'test', 'bench'];
const sourceFiles = ['tsconfig.json', 'package.json', 'package-lock.json'];

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
const compiled = spawnSync(process.execPath, [compiler, '-p', root], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
