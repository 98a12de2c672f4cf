// The pieces of the crash test that other crash checks reuse: start the appending child process
// (append-child.ts), collect its acknowledgements, and SIGKILL it at a seeded random moment.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { NewEvent } from '../../src/domain/events.js';
import { storyWritesOf } from '../contract/event-store.fixtures.js';
import { seededRandom } from '../support/seeded-random.js';

export interface AppendChildOptions {
  /** The SQLite event store file. */
  path: string;
  seed: number;
  /** Number of project streams the writers spread over. */
  streams: number;
  /** Number of concurrent writers in the child. */
  writers: number;
  /** Number of concurrent readers in the child (default none). */
  readers?: number;
}

/** One append the child saw acknowledged (committed with full sync). */
export interface AppendAck {
  stream: string;
  commandId: string;
  eventCount: number;
  /** Stream version and global position of the append's last event. */
  version: number;
  position: number;
}


/** The events the child appended for an acknowledgement (content is a function of the command id). */
export function eventsOfAck(ack: Pick<AppendAck, 'commandId' | 'eventCount'>): NewEvent[] {
  return storyWritesOf(ack.commandId, ack.eventCount);
}

const childScript = fileURLToPath(new URL('./append-child.js', import.meta.url));

/**
 * Starts the child, waits for a seeded number of acknowledgements (20 to 320), lets it run a seeded
 * few milliseconds more, SIGKILLs it and resolves with every acknowledgement it printed.
 */
export function runAppendChildUntilKilled(options: AppendChildOptions): Promise<AppendAck[]> {
  const random = seededRandom(options.seed ^ 0x5eed);
  const killAfterAcks = 20 + Math.floor(random() * 300);
  const extraMs = Math.floor(random() * 10);

  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acks: AppendAck[] = [];
    let partial = '';
    let stderr = '';
    let killScheduled = false;

    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) acks.push(JSON.parse(line) as AppendAck);
      if (!killScheduled && acks.length >= killAfterAcks) {
        killScheduled = true;
        setTimeout(() => child.kill('SIGKILL'), extraMs);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL' && killScheduled) resolve(acks);
      else reject(new Error(`the append child ended by itself (code ${code}, signal ${signal}): ${stderr}`));
    });
  });
}
