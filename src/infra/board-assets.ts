// Reads the built board (dist/web: manifest.json, index.html, assets/ with their .gz twins, written by
// scripts/build.mjs) into memory once at start: a few hundred KB. Null when no board was built (a build
// of the TypeScript alone): the server then answers browsers with its plain HTML index.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BoardAsset, BoardAssets } from '../api/board-pages.js';

/** Where `npm run build` puts the board, beside the compiled server (dist/src/infra -> dist/web). */
export const BUILT_BOARD_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

interface Manifest {
  index: string;
  assets: Array<{ name: string; type: string }>;
}

export function loadBoardAssets(dir: string = BUILT_BOARD_DIR): BoardAssets | null {
  const manifestFile = join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) return null;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  const files = new Map<string, BoardAsset>();
  for (const { name, type } of manifest.assets) {
    const path = join(dir, 'assets', name);
    files.set(name, { contentType: type, body: readFileSync(path), gzip: existsSync(`${path}.gz`) ? readFileSync(`${path}.gz`) : null });
  }
  const indexHtml = readFileSync(join(dir, manifest.index));
  return {
    indexHtml,
    asset: (name) => files.get(name) ?? null,
  };
}
