// A small tmpfs volume for storage-failure tests (disk full, read-only): mounted on a fresh directory,
// or null with the reason when this machine does not allow it (not root, no mount).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallVolume {
  path: string;
  /** Remounts read-only (true) or read-write (false), keeping the files. */
  setReadOnly(readOnly: boolean): void;
  unmount(): void;
}

export function mountSmallVolume(sizeBytes: number): { volume: SmallVolume } | { reason: string } {
  const path = mkdtempSync(join(tmpdir(), 'storyline-volume-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0755`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    return { reason: `cannot mount a tmpfs here (${String((error as { stderr?: unknown }).stderr ?? error).trim()})` };
  }
  return {
    volume: {
      path,
      setReadOnly(readOnly) {
        execFileSync('mount', ['-o', `remount,${readOnly ? 'ro' : 'rw'}`, path], { stdio: 'pipe' });
      },
      unmount() {
        execFileSync('umount', [path], { stdio: 'pipe' });
        rmSync(path, { recursive: true, force: true });
      },
    },
  };
}
