// The board served by the API's own process (BOARD-CONTRACT "Board URLs"): the app's page at / for a
// browser and at every board address, with the strict policy headers; fingerprinted assets cached for a
// year, gzipped on request; an invitation's secret never in the access log. Needs the built board
// (`npm run build` puts it in dist/web, as `npm test` does).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { BOARD_CONTENT_SECURITY_POLICY } from '../../src/api/board-pages.js';
import { operationsRoutes } from '../../src/api/operations.js';
import type { ApiRequest } from '../../src/api/route-table.js';
import { BUILT_BOARD_DIR } from '../../src/infra/board-assets.js';
import { createLog } from '../../src/infra/log.js';
import { storylineApp, type StorylineApp } from './support/storyline-app.js';

const BROWSER = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const manifest = JSON.parse(readFileSync(`${BUILT_BOARD_DIR}manifest.json`, 'utf8')) as { script: string; style: string };

describe('API: the board served by the same process', () => {
  let app: StorylineApp;
  const logLines: Record<string, unknown>[] = [];

  before(async () => {
    app = await storylineApp({ log: createLog('info', (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>)) });
  });
  after(() => app.close());

  const expectBoardPage = (res: Awaited<ReturnType<StorylineApp['server']['request']>>) => {
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(res.text).to.contain(`<script type="module" src="/assets/${manifest.script}"></script>`);
    expect(res.text).to.contain(`href="/assets/${manifest.style}"`);
    expect(res.text).not.to.match(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(res.headers['content-security-policy']).to.equal(BOARD_CONTENT_SECURITY_POLICY);
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['referrer-policy']).to.equal('no-referrer');
    expect(res.headers['cache-control']).to.equal('no-cache');
  };

  it('answers / with the app for a browser, with a policy that allows no inline script and no framing', async () => {
    const res = await app.server.request('GET', '/', { headers: BROWSER });
    expectBoardPage(res);
    const policy = String(res.headers['content-security-policy']);
    expect(policy).to.match(/(^|; )script-src 'self'(;|$)/).and.not.to.contain('unsafe-inline');
    expect(policy).to.contain("frame-ancestors 'none'").and.to.contain("connect-src 'self'");
  });

  it('answers every board address with the app, whatever the id, and leaves other root paths alone', async () => {
    for (const path of ['/profile', '/invitations/s3cr3t-value', '/n/projects/12', '/story/show/345', '/epic/show/6']) {
      expectBoardPage(await app.server.request('GET', path, { headers: BROWSER }));
    }
    const unknown = await app.server.request('GET', '/n/nothing', { headers: BROWSER });
    expect(unknown.status).to.equal(404);
    expect(unknown.json).to.include({ code: 'route_not_found' });
  });

  it('serves the fingerprinted assets for a year, gzipped to a client that accepts it', async () => {
    const plain = await app.server.request('GET', `/assets/${manifest.script}`);
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-type']).to.equal('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(plain.headers['vary']).to.equal('Accept-Encoding');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.headers['x-content-type-options']).to.equal('nosniff');
    const zipped = await rawGet(app.server.port, `/assets/${manifest.script}`, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(gunzipSync(zipped.body).toString()).to.equal(plain.text);
    const refused = await rawGet(app.server.port, `/assets/${manifest.script}`, { 'Accept-Encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).to.equal(undefined);
    const style = await app.server.request('GET', `/assets/${manifest.style}`);
    expect(style.headers['content-type']).to.equal('text/css; charset=utf-8');
    const missing = await app.server.request('GET', '/assets/app-NOTBUILT.js');
    expect(missing.status).to.equal(404);
    expect(missing.json).to.include({ code: 'route_not_found' });
  });

  it('keeps the JSON index for JSON clients and answers a conditional request of the page with 304', async () => {
    const json = await app.server.request('GET', '/', { headers: { Accept: 'application/json' } });
    expect(json.json).to.include({ api: '/services/v5' });
    const page = await app.server.request('GET', '/n/projects/1', { headers: BROWSER });
    const again = await app.server.request('GET', '/n/projects/1', { headers: { ...BROWSER, 'If-None-Match': String(page.headers['etag']) } });
    expect(again.status).to.equal(304);
  });

  it('logs an invitation page without its secret', async () => {
    logLines.splice(0);
    await app.server.request('GET', '/invitations/very-secret-value?x=1', { headers: BROWSER });
    const lines = logLines.filter((line) => line['message'] === 'request');
    expect(lines.map((line) => line['path'])).to.deep.equal(['/invitations/{secret}?x=1']);
    expect(JSON.stringify(logLines)).not.to.contain('very-secret-value');
  });

  it('answers a browser with the plain HTML index when no board was built', async () => {
    const root = operationsRoutes({ serverVersion: '9.9.9', headPosition: async () => 0, checkpoints: async () => [], board: null }).find((route) => route.path === '/')!;
    const result = await root.handle({ header: (name: string) => (name === 'accept' ? BROWSER.Accept : undefined) } as unknown as ApiRequest);
    expect(result).to.include({ kind: 'raw', contentType: 'text/html; charset=utf-8' });
    expect(String((result as { body: string }).body)).to.contain('href="/services/v5"').and.to.contain('Storyline 9.9.9');
  });
});

/** A GET whose body is read as bytes (the test client reads text, which a gzip body is not). */
async function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
