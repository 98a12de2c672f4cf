// Shutdown of the HTTP listener: in-flight requests finish, new connections are refused, idle
// keep-alive connections are closed, and the stores are closed only after the last response.
import { request } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import { listen, type RunningServer } from '../../src/infra/http-server.js';
import { createLog, silentLog } from '../../src/infra/log.js';
import { answerClientErrorsWithJson } from '../../src/api/app.js';
import { openStoryline, type Storyline } from '../../src/infra/composition.js';
import { configFromEnv } from '../../src/infra/config.js';

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

describe('HTTP listener: slow and abandoned requests', function () {
  this.timeout(20_000);
  let storyline: Storyline;
  let server: RunningServer;
  let lines: Record<string, unknown>[];
  let logged: (predicate: (line: Record<string, unknown>) => boolean) => Promise<void>;

  before(async () => {
    lines = [];
    const waiters: { predicate: (line: Record<string, unknown>) => boolean; resolve: () => void }[] = [];
    logged = (predicate) =>
      new Promise((resolve) => {
        if (lines.some(predicate)) resolve();
        else waiters.push({ predicate, resolve });
      });
    const log = createLog('debug', (text) => {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const waiter of waiters) if (waiter.predicate(line)) waiter.resolve();
    });
    storyline = await openStoryline(configFromEnv({ STORYLINE_DATA: ':memory:' }), log);
    server = await listen(storyline.app, {
      port: 0,
      host: '127.0.0.1',
      graceMs: 1_000,
      requestTimeoutMs: 1_000,
      headersTimeoutMs: 1_000,
      log,
      onClosed: () => storyline.close(),
      configure: answerClientErrorsWithJson,
    });
    token = (await storyline.addPerson({ email: 'slow@example.com', name: 'Slow', password: 'long-enough-pw' })).api_token;
  });
  after(() => server.shutdown());
  let token: string;

  /** Sends the headers of a POST announcing a body and part of that body; resolves when the socket closes. */
  function partialUpload(then: 'stall' | 'abort'): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(`POST /services/v5/projects HTTP/1.1\r\nHost: x\r\nX-TrackerToken: ${token}\r\n`);
        socket.write('Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"name":"');
        if (then === 'abort') setTimeout(() => socket.destroy(), 100); // once the server reads the body
      });
      socket.on('error', () => {});
      socket.resume(); // read the answer to its end, so 'close' follows
      socket.on('close', () => resolve());
    });
  }

  /** What the listener says about the problem itself: not debug lines, not the request's access-log line. */
  const isAboutTheProblem = (line: Record<string, unknown>) => line['level'] !== 'debug' && line['message'] !== 'request';

  it('cuts a stalled upload off at the request timeout and logs it once at info, without a stack', async () => {
    const before = lines.length;
    await partialUpload('stall');
    await logged((line) => String(line['message']).includes('timed out'));
    const about = lines.slice(before).filter(isAboutTheProblem);
    expect(about.map((line) => [line['level'], line['message']])).to.deep.equal([['info', 'request timed out before it was complete; connection closed']]);
    expect(JSON.stringify(about)).not.to.contain('    at ');
  });

  it('logs a client that went away mid-upload once at info, without a stack', async () => {
    const before = lines.length;
    await partialUpload('abort');
    await logged((line) => String(line['message']).includes('before its request was complete'));
    await new Promise((resolve) => setImmediate(resolve));
    const about = lines.slice(before).filter(isAboutTheProblem);
    expect(about).to.have.length(1);
    expect(about[0]).to.include({ level: 'info', method: 'POST', path: '/services/v5/projects' });
    expect(JSON.stringify(lines)).not.to.contain('unhandled error');
  });
});
