// Shutdown of the HTTP listener: in-flight requests finish, new connections are refused, idle
// keep-alive connections are closed, and the stores are closed only after the last response.
import { request } from 'node:http';
import { expect } from 'chai';
import { listen, type RunningServer } from '../../src/infra/http-server.js';
import { silentLog } from '../../src/infra/log.js';

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP listener shutdown', () => {
  let release: () => void;
  let started: Promise<void>;
  let events: string[];
  let server: RunningServer;

  beforeEach(async () => {
    events = [];
    let markStarted!: () => void;
    started = new Promise((resolve) => (markStarted = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    server = await listen(
      (req, res) => {
        if (req.url === '/slow') {
          markStarted();
          void gate.then(() => {
            events.push('slow answered');
            res.end('done');
          });
        } else res.end('fast');
      },
      { port: 0, host: '127.0.0.1', graceMs: 5_000, log: silentLog, onClosed: async () => void events.push('stores closed') },
    );
  });

  it('lets an in-flight request finish before closing the stores, and refuses new connections', async () => {
    const slow = get(server.port, '/slow');
    await started;
    const stopped = server.shutdown();
    const refused = await get(server.port, '/fast').then(() => null, (error: NodeJS.ErrnoException) => error.code);
    expect(refused).to.equal('ECONNREFUSED');
    expect(events).to.deep.equal([]);
    release();
    expect(await slow).to.deep.equal({ status: 200, body: 'done' });
    await stopped;
    expect(events).to.deep.equal(['slow answered', 'stores closed']);
  });

  it('closes at once when nothing is in flight', async () => {
    expect((await get(server.port, '/fast')).body).to.equal('fast');
    await server.shutdown();
    expect(events).to.deep.equal(['stores closed']);
    release();
  });
});
