// The reference page at /docs over HTTP: the page names its files by fingerprint, carries its own
// Content-Security-Policy (no inline script, this origin only), and the files are bundled with the
// server (nothing from a CDN), cached for a year, gzipped for clients that accept it. The page rendering
// in a browser, with a "try it" call, is test/browser/api-reference.test.ts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { storylineApp, type StorylineApp } from './support/storyline-app.js';

describe('API: the reference page (/docs)', function () {
  this.timeout(60_000);
  let app: StorylineApp;
  before(async () => {
    app = await storylineApp();
  });
  after(() => app?.close());

  it('answers the page with its own security policy, revalidated with its ETag', async () => {
    const res = await app.server.request('GET', '/docs');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/html/);
    const policy = String(res.headers['content-security-policy']);
    expect(policy).to.contain("script-src 'self'");
    expect(policy).to.contain("default-src 'none'");
    expect(policy).to.contain("connect-src 'self'");
    expect(policy).to.contain("frame-ancestors 'none'");
    expect(policy).not.to.contain('unsafe-inline');
    expect(policy).not.to.contain('unsafe-eval');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['cache-control']).to.equal('no-cache');
    expect(res.text).not.to.match(/<script>|<script [^>]*>[^<]/);
    expect(res.text).to.contain('data-openapi="/services/v5/openapi.json"');
    const again = await app.server.request('GET', '/docs', { headers: { 'If-None-Match': String(res.headers['etag']) } });
    expect(again.status).to.equal(304);
  });

  it("serves the renderer's files from this server under fingerprinted names, cached for a year, gzipped when accepted", async () => {
    const page = (await app.server.request('GET', '/docs')).text;
    const urls = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(urls.every((url) => url.startsWith('/'))).to.equal(true);
    const files = urls.filter((url) => url.startsWith('/docs/assets/'));
    expect(files.length).to.equal(4);
    const dist = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json').replace(/package\.json$/, '');
    for (const url of files) {
      const plain = await app.server.request('GET', url);
      expect(plain.status, url).to.equal(200);
      expect(plain.headers['cache-control'], url).to.equal('public, max-age=31536000, immutable');
      expect(plain.headers['etag'], url).to.be.a('string');
      const zipped = await app.server.request('GET', url, { headers: { 'Accept-Encoding': 'gzip, deflate' } });
      expect(zipped.headers['content-encoding'], url).to.equal('gzip');
      expect(zipped.headers['etag'], url).not.to.equal(plain.headers['etag']);
    }
    // fetch asks for gzip and unzips: the bytes are the installed package's own
    const bundle = files.find((url) => url.includes('swagger-ui-bundle'))!;
    const fetched = await fetch(`http://127.0.0.1:${app.server.port}${bundle}`);
    expect(fetched.headers.get('content-encoding')).to.equal('gzip');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(readFileSync(`${dist}swagger-ui-bundle.js`))).to.equal(true);
  });

  it('answers route_not_found for a file it does not have', async () => {
    const res = await app.server.request('GET', '/docs/assets/swagger-ui-bundle.js');
    expect(res.status).to.equal(404);
    expect(res.json.code).to.equal('route_not_found');
  });
});
