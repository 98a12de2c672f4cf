// Runs a crash-test child that prints one log position per line on stdout: kills it with SIGKILL once it
// printed `killAfter` lines (it must then have died of that signal), or lets it run to a clean exit 0.
// Resolves with the positions it printed.
import { spawn } from 'node:child_process';

export function runPositionReportingChild(script: string, options: unknown, killAfter: number | null): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const positions: number[] = [];
    let partial = '';
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      positions.push(...lines.map(Number));
      if (killAfter !== null && !killed && positions.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (killAfter !== null ? signal === 'SIGKILL' && killed : code === 0) resolve(positions);
      else reject(new Error(`${script} ended with code ${code}, signal ${signal}: ${stderr}`));
    });
  });
}
