// Property: whatever method, path, query, headers and body arrive, the app answers without a 5xx and
// with JSON (raw results and bodiless 204 / 304 aside), always carrying the CORS headers.

import { expect } from 'chai';
import fc from 'fast-check';
import { fakeApp, PRIVATE, PUBLIC, tokens } from '../api/support/conventions-fixture.js';
import { startServer, type TestServer } from '../api/support/http-client.js';

const prefixes = ['/services/v5', '/v5', '/services/edge', '/edge', '/services/next', '/next', '', '/services', '/v4'];
const literals = ['projects', 'stories', 'me', 'echo', 'epics', 'uploads', 'stories.csv', 'file_attachments', 'download', 'my', 'notifications', 'people', 'since'];
const ids = [String(PRIVATE), String(PUBLIC), '500', '501', '0', '-1', '999', 'abc', '1e3', '99999999999999999999'];
const oddSegments = ['', '%', '%zz', '%E0%A4%A', '%00', '%2F', '%C3%A9', '..', '.', '%25', 'a%20b', '~'];

const segment = fc.oneof(fc.constantFrom(...literals), fc.constantFrom(...ids), fc.constantFrom(...oddSegments), fc.stringMatching(/^[A-Za-z0-9_.~%-]{0,6}$/));
const randomPath = fc.tuple(fc.constantFrom(...prefixes), fc.array(segment, { maxLength: 6 }), fc.boolean()).map(
  ([prefix, segments, doubleSlash]) => `${prefix}${doubleSlash ? '/' : ''}/${segments.join('/')}`,
);
/** Shapes of the fixture's routes, so most runs reach a handler; `:x` takes any id or odd segment. */
const templates = [
  '/projects/:x', '/projects/:x/stories', '/projects/:x/stories/:x', '/stories/:x', '/me', '/echo', '/projects/:x/epics',
  '/projects/:x/stories.csv', '/projects/:x/uploads', '/people/:x/notifications/since/:x', '/my/notifications',
];
const idOrOdd = fc.oneof(fc.constantFrom(...ids), fc.constantFrom(...oddSegments));
const routePath = fc
  .tuple(fc.constantFrom(...prefixes.slice(0, 6)), fc.constantFrom(...templates), fc.array(idOrOdd, { minLength: 2, maxLength: 2 }), fc.boolean())
  .map(([prefix, template, [first, second], doubleSlash]) => {
    let used = 0;
    const filled = template.replace(/:x/g, () => (used++ === 0 ? first! : second!));
    return `${prefix}${doubleSlash ? '/' : ''}${filled}`;
  });
const rootPath = idOrOdd.map((id) => `/file_attachments/${id}/download`);
const path = fc.oneof({ arbitrary: routePath, weight: 6 }, { arbitrary: randomPath, weight: 2 }, { arbitrary: rootPath, weight: 1 });

const queryValue = fc.oneof(
  fc.constantFrom('true', 'false', 'millis', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'GET', ':default', 'name,story_type',
    ':default,owned_by', 'comments(text,file_attachments(:default,uploader))', 'name(', 'a,,b', ')', tokens.alice, 'nope', '%zz', '%E0'),
  fc.stringMatching(/^[A-Za-z0-9(),:_%-]{0,12}$/),
);
const queryName = fc.constantFrom('fields', 'envelope', 'date_format', '_method', 'token', 'limit', 'offset', 'filter', '__proto__', 'x');
const query = fc.array(fc.tuple(queryName, queryValue), { maxLength: 5 }).map((pairs) =>
  pairs.map(([name, value]) => `${name}=${value}`).join('&'),
);

const headerSets = fc.record(
  {
    'X-TrackerToken': fc.constantFrom(tokens.alice, tokens.bob, tokens.carol, tokens.dave, 'nope', ''),
    'X-ServiceToken': fc.constantFrom(tokens.alice, 'nope'),
    'X-Requested-With': fc.constant('XMLHttpRequest'),
    Authorization: fc.constantFrom('Basic YWxpY2U6YWxpY2UtcGFzc3dvcmQ=', 'Basic !!', 'Bearer x', 'Basic Og=='),
    'Content-Type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'multipart/form-data; boundary=x', 'APPLICATION/JSON'),
    'X-Tracker-Warn-Unless-Project-Version-Is': fc.constantFrom('5', '1', 'x', ''),
    'If-None-Match': fc.constantFrom('*', '"abc"', 'W/"x"'),
  },
  { requiredKeys: [] },
);

const body = fc.oneof(
  fc.constant(undefined),
  fc.json({ maxDepth: 2 }),
  fc.string({ maxLength: 40 }),
  fc.constant('x'.repeat(5000)),
);

const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO');

describe('HTTP fuzz', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(fakeApp().app);
  });
  after(() => server.close());

  it('never answers 5xx and always answers JSON with CORS headers', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, query, headerSets, body, async (verb, rawPath, rawQuery, headers, payload) => {
        const target = rawQuery ? `${rawPath}?${rawQuery}` : rawPath;
        const res = await server.request(verb, target, {
          headers: headers as Record<string, string>,
          ...(payload === undefined ? {} : { rawBody: payload }),
        });
        expect(res.status, `${verb} ${target} -> ${res.text}`).to.be.below(500);
        expect(res.headers['access-control-allow-origin']).to.equal('*');
        if (res.status === 204 || res.status === 304 || verb === 'HEAD') return;
        const type = String(res.headers['content-type']);
        if (type.startsWith('text/csv') || type === 'image/png') return;
        expect(type, `${verb} ${target}`).to.equal('application/json; charset=utf-8');
        expect(() => JSON.parse(res.text), res.text).to.not.throw();
      }),
      { numRuns: 600 },
    );
  });
});
