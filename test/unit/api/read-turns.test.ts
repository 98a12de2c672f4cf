// The turns of the GETs that compute their answer: one a turn of the event loop, in the order asked, and
// what arrives by I/O meanwhile (a write's next step) is handled between two of them.
import { expect } from 'chai';
import { MessageChannel } from 'node:worker_threads';
import { ReadTurns } from '../../../src/api/read-turns.js';

describe('read turns', () => {
  it('gives the turns in the order asked, one a turn of the event loop, with I/O handled between two', async () => {
    const turns = new ReadTurns();
    const seen: string[] = [];
    const channel = new MessageChannel();
    const message = new Promise<void>((resolve) =>
      channel.port2.once('message', () => {
        seen.push('message');
        resolve();
      }),
    );
    const reads = [1, 2, 3].map(async (n) => {
      await turns.take();
      seen.push(`read ${n}`);
      // The first read's work makes I/O arrive (as an append confirmed by the writer's thread would).
      if (n === 1) channel.port1.postMessage('appended');
    });
    expect(turns.queued).to.equal(3);
    await Promise.all([...reads, message]);
    channel.port1.close();
    expect(seen).to.deep.equal(['read 1', 'message', 'read 2', 'read 3']);
    expect(turns.queued).to.equal(0);
  });

  it('gives no turn before the current run of the event loop has ended', async () => {
    const turns = new ReadTurns();
    let given = false;
    const taken = turns.take().then(() => (given = true));
    await Promise.resolve();
    expect(given).to.equal(false);
    await taken;
    expect(given).to.equal(true);
  });
});
