// The version this server was built from: package.json's, read once. Compiled, this file sits in
// dist/src/infra/ (root three levels up); run from source, in src/infra/ (two levels up).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  cached ??= readVersion();
  return cached;
}

function readVersion(): string {
  for (const relative of ['../../../package.json', '../../package.json']) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (parsed.name === 'storyline' && typeof parsed.version === 'string') return parsed.version;
    } catch {
      // not the package root: try the next candidate
    }
  }
  throw new Error('cannot find the storyline package.json');
}
