// One server per data directory: the lock names its live holder, a stale lock (dead pid) is taken over,
// and releasing removes only one's own lock.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { lockDataDirectory } from '../../src/infra/data-directory-lock.js';
import { OperatorError } from '../../src/infra/operator-error.js';

/** The pid of a process that has ended (and was reaped). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

describe('data-directory lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storyline-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the pid while taken, refuses a second holder naming the first, and is gone once released', () => {
    const lock = lockDataDirectory(dir);
    expect(readFileSync(join(dir, 'storyline.lock'), 'utf8').trim()).to.equal(String(process.pid));
    const parentPid = process.ppid; // alive: the shell or runner that started the tests
    const second = (() => {
      try {
        lockDataDirectory(dir, parentPid);
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(second).to.be.instanceOf(OperatorError);
    expect((second as Error).message).to.contain(`pid ${process.pid}`).and.contain(dir);
    lock.release();
    expect(existsSync(join(dir, 'storyline.lock'))).to.equal(false);
  });

  it('takes over a lock whose holder is dead', () => {
    const stale = deadPid();
    writeFileSync(join(dir, 'storyline.lock'), `${stale}\n`);
    const lock = lockDataDirectory(dir);
    expect(lock.tookOverFrom).to.equal(stale);
    expect(readFileSync(join(dir, 'storyline.lock'), 'utf8').trim()).to.equal(String(process.pid));
    lock.release();
  });

  it('takes over an unreadable lock, and release leaves a lock taken by another holder alone', () => {
    writeFileSync(join(dir, 'storyline.lock'), 'garbage');
    const lock = lockDataDirectory(dir);
    writeFileSync(join(dir, 'storyline.lock'), `${process.ppid}\n`);
    lock.release();
    expect(readFileSync(join(dir, 'storyline.lock'), 'utf8').trim()).to.equal(String(process.ppid));
  });
});
