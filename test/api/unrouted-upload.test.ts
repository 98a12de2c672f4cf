// A body sent to a route that does not exist (a multipart upload of several MB, paced or in one go)
// still gets a readable 404 `route_not_found`: the client finishes sending without a reset (EPIPE /
// ECONNRESET) and then reads the answer, as a client that writes its whole body first does (issue 11).
import { connect } from 'node:net';
import { expect } from 'chai';
import { storylineApp, type StorylineApp } from './support/storyline-app.js';
import { seededRandom } from '../support/seeded-random.js';

interface Exchange {
  /** The error the socket met while the body was being sent, or null. */
  sendError: string | null;
  status: string;
  body: string;
}

/** Sends a POST of `size` bytes in `chunk`-byte writes (one per turn of the event loop when paced), then reads the answer. */
function uploadThenRead(port: number, path: string, size: number, chunk: number, pace: boolean): Promise<Exchange> {
  const random = seededRandom(size + chunk);
  const body = Buffer.alloc(size, 0x2d);
  for (let i = 0; i < size; i += 4096) body[i] = Math.floor(random() * 256);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let sendError: string | null = null;
    socket.on('data', (part: Buffer) => received.push(part));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      sendError = error.code ?? error.message;
    });
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('utf8');
      const [head = '', answer = ''] = text.split('\r\n\r\n');
      resolve({ sendError, status: head.split('\r\n')[0] ?? '', body: answer });
    });
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: storyline.test\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${size}\r\n\r\n`,
    );
    let at = 0;
    const next = (): void => {
      while (at < size) {
        const piece = body.subarray(at, at + chunk);
        at += piece.length;
        if (!socket.write(piece)) {
          socket.once('drain', next);
          return;
        }
        if (pace) {
          setImmediate(next);
          return;
        }
      }
      socket.end();
    };
    next();
  });
}

describe('API: a body sent to a route that does not exist', () => {
  let app: StorylineApp;
  before(async () => {
    app = await storylineApp();
  });
  after(() => app.close());

  for (const [label, chunk, pace] of [['in one go', 8 * 1024 * 1024, false], ['paced', 64 * 1024, true]] as const) {
    it(`lets an 8 MB upload sent ${label} finish, then answers a readable 404 route_not_found`, async () => {
      const exchange = await uploadThenRead(app.server.port, '/services/v5/projects/1/no_such_uploads', 8 * 1024 * 1024, chunk, pace);
      expect(exchange.sendError).to.equal(null);
      expect(exchange.status).to.equal('HTTP/1.1 404 Not Found');
      expect(JSON.parse(exchange.body)).to.include({ kind: 'error', code: 'route_not_found' });
    });
  }

  it('keeps serving after a discarded body', async () => {
    const exchange = await uploadThenRead(app.server.port, '/services/v5/nowhere', 2048, 2048, false);
    expect(exchange.status).to.equal('HTTP/1.1 404 Not Found');
    expect((await app.api('GET', '/nowhere')).status).to.equal(404);
  });
});
