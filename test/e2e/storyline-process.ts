// `storyline` as a child process, the operator's way: `serve` until it logs "listening", and one-shot
// commands run to their exit (bounded: a command that does not end in time fails the test).
import { spawn, execFile, type ChildProcessByStdio } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const bin = fileURLToPath(new URL('../../../bin/storyline.js', import.meta.url));
export const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface Served {
  child: ChildProcessByStdio<null, Readable, Readable>;
  port: number;
  stdout: string[];
  logs: Record<string, unknown>[];
}

/** Servers started and not yet seen to exit: `stopAll` ends them (a failed test leaves none behind). */
const running = new Set<Served['child']>();

/** Who the process runs as (root tests drop to another user where file modes must bind). */
export interface RunAs {
  uid?: number;
  gid?: number;
  /** The `storyline.js` to run: a copy that user can reach (`reachableCopy`); this checkout's otherwise. */
  bin?: string;
}

/**
 * The package as another user can run it: `bin/`, `dist/src/`, `package.json` and the production
 * dependencies (per package-lock.json) placed under `dir`, every file world-readable. A checkout in a
 * directory only its owner may enter (a home directory, what `mktemp -d` makes) is out of that user's
 * reach. Returns the placed `storyline.js`, or why `dir` itself cannot be reached (some directory on its
 * way is closed to others).
 */
export function reachableCopy(dir: string): { bin: string } | { reason: string } {
  for (let up = dirname(dir); up !== dirname(up); up = dirname(up)) {
    if ((statSync(up).mode & 0o001) === 0) return { reason: `${up} cannot be entered by other users` };
  }
  const place = (relative: string) => placeReadable(join(packageRoot, relative), join(dir, relative));
  for (const parent of ['dist', 'node_modules']) {
    mkdirSync(join(dir, parent), { recursive: true });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, parent), 0o755);
  }
  for (const relative of ['package.json', 'bin', 'dist/src']) place(relative);
  for (const path of productionDependencies()) place(path);
  return { bin: join(dir, 'bin', 'storyline.js') };
}

/**
 * The installed production dependencies of this checkout, per package-lock.json: `node_modules/NAME` of
 * every top-level package that is not a dev dependency (what `npm install --omit=dev` installs).
 */
export function productionDependencies(): string[] {
  const lock = JSON.parse(readFileSync(join(packageRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !path.slice('node_modules/'.length).includes('/node_modules/') && entry.dev !== true)
    .map(([path]) => path)
    .filter((path) => existsSync(join(packageRoot, path)));
}

/**
 * `from` at `to`: directories made 0755; a file others may already read is hard-linked (fast, and its
 * mode is left as it is), any other file (a private umask) copied and made 0644 (0755 when executable).
 */
function placeReadable(from: string, to: string): void {
  const stat = statSync(from);
  if (stat.isDirectory()) {
    mkdirSync(to, { recursive: true, mode: 0o755 });
    chmodSync(to, 0o755);
    for (const entry of readdirSync(from)) placeReadable(join(from, entry), join(to, entry));
    return;
  }
  if ((stat.mode & 0o004) !== 0) {
    try {
      linkSync(from, to);
      return;
    } catch {
      // another file system: copied below
    }
  }
  copyFileSync(from, to);
  chmodSync(to, stat.mode & 0o100 ? 0o755 : 0o644);
}

export function serve(env: Record<string, string>, runAs: RunAs = {}): Promise<Served> {
  const { bin: runBin = bin, ...user } = runAs;
  const child = spawn(process.execPath, [runBin, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...user,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const served: Served = { child, port: 0, stdout: [], logs: [] };
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => served.stdout.push(...chunk.split('\n').filter(Boolean)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      for (const line of chunk.split('\n').filter(Boolean)) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        served.logs.push(entry);
        if (entry['message'] === 'listening') resolve({ ...served, port: Number(entry['port']) });
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited early with ${code}: ${stderr}`)));
  });
}

export function stop(served: Served): Promise<number | null> {
  return new Promise((resolve) => {
    served.child.removeAllListeners('exit');
    if (served.child.exitCode !== null) resolve(served.child.exitCode);
    served.child.on('exit', (code) => resolve(code));
    served.child.kill('SIGTERM');
  });
}

export async function stopAll(): Promise<void> {
  const alive = [...running].filter((child) => child.exitCode === null && child.signalCode === null);
  running.clear();
  const ended = alive.map((child) => new Promise((resolve) => child.once('exit', resolve)));
  for (const child of alive) child.kill('SIGKILL');
  await Promise.all(ended);
}

export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `storyline ...args` to its end; rejects when it is still running after `withinMs`. */
export function runToExit(args: string[], env: Record<string, string>, withinMs = 10_000): Promise<Exited> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env }, timeout: withinMs }, (error, stdout, stderr) => {
      if (error?.killed) reject(new Error(`storyline ${args.join(' ')} still ran after ${withinMs} ms: ${stderr}`));
      else resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

export async function getMe(port: number, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}/services/v5/me`, { headers: { 'X-TrackerToken': token } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
