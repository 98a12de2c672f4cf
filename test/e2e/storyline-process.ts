// `storyline` as a child process, the operator's way: `serve` until it logs "listening", and one-shot
// commands run to their exit (bounded: a command that does not end in time fails the test).
import { spawn, execFile, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const bin = fileURLToPath(new URL('../../../bin/storyline.js', import.meta.url));

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
}

export function serve(env: Record<string, string>, runAs: RunAs = {}): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...runAs,
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
