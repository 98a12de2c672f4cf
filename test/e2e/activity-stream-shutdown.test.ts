// SIGTERM and open live activity streams: `storyline serve` ends every stream cleanly (the client sees
// the end of the response, not a reset) and stops without waiting out its shutdown grace period for
// them (the grace is set far beyond the test's timeout, and the server must not log that it ran out).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openEventStream } from '../api/support/event-stream-client.js';
import { serve, stop, stopAll } from './storyline-process.js';

describe('live activity streams at SIGTERM', function () {
  this.timeout(30_000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'storyline-stream-stop-'));
  });
  after(async () => {
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends every open stream cleanly and stops without waiting for them', async () => {
    const served = await serve({ STORYLINE_DATA: dataDir, STORYLINE_SHUTDOWN_GRACE_MS: '600000' });
    const token = served.stdout.find((line) => line.includes('API token:'))!.split(': ')[1]!;
    const projects = (await (await fetch(`http://127.0.0.1:${served.port}/services/v5/projects`, { headers: { 'X-TrackerToken': token } })).json()) as Array<{ id: number }>;
    const streams = await Promise.all(
      [0, 1, 2].map(() => openEventStream(served.port, `/services/v5/projects/${projects[0]!.id}/activity/stream?token=${token}`)),
    );
    expect(streams.map((stream) => stream.status)).to.deep.equal([200, 200, 200]);

    expect(await stop(served)).to.equal(0);
    expect(await Promise.all(streams.map((stream) => stream.ended))).to.deep.equal(['end', 'end', 'end']);
    const messages = served.logs.map((entry) => entry['message']);
    expect(messages).to.include('stopped');
    expect(messages).to.not.include('shutdown grace period over; closing remaining connections');
    expect(JSON.stringify(served.logs)).to.not.include(token);
  });
});
