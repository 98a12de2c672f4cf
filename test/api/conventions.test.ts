// The conventions every endpoint follows (spec "Conventions for all endpoints", "Authentication",
// "Errors", "Versioning"), checked over HTTP against fake routes and resources.

import { connect } from 'node:net';
import { expect } from 'chai';
import { fakeApp, PRIVATE, PUBLIC, T0, tokens, type FakeWorld } from './support/conventions-fixture.js';
import { startServer, type RequestOptions, type TestResponse, type TestServer } from './support/http-client.js';

const V5 = '/services/v5';
const asAlice = { 'X-TrackerToken': tokens.alice };
const asBob = { 'X-TrackerToken': tokens.bob };
const asCarol = { 'X-TrackerToken': tokens.carol };
const asDave = { 'X-TrackerToken': tokens.dave };

const CORS_ALLOW_HEADERS =
  'X-TrackerToken,DNT,X-Mx-ReqToken,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,X-Tracker-Warn-Unless-Project-Version-Is,X-ServiceToken,X-Service-Warn-Unless-Project-Version-Is';

function expectError(res: TestResponse, status: number, code: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
  expect(res.json.kind).to.equal('error');
  expect(res.json.code).to.equal(code);
  expect(res.json.error).to.be.a('string').and.not.equal('');
}

function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

describe('API conventions', () => {
  let server: TestServer;
  let world: FakeWorld;
  const call = (method: string, path: string, options?: RequestOptions) => server.request(method, path, options);

  beforeEach(async () => {
    const built = fakeApp();
    world = built.world;
    server = await startServer(built.app);
  });
  afterEach(() => server.close());

  describe('prefixes and routing', () => {
    for (const prefix of ['/services/v5', '/v5', '/services/edge', '/edge', '/services/next', '/next']) {
      it(`serves the same routes under ${prefix}`, async () => {
        const res = await call('GET', `${prefix}/projects/${PRIVATE}`, { headers: asAlice });
        expect(res.status).to.equal(200);
        expect(res.json).to.deep.equal({ kind: 'project', id: PRIVATE, name: 'Private', public: false, created_at: '2017-05-03T23:29:39Z' });
      });
    }

    it('accepts a double slash after the prefix', async () => {
      const res = await call('GET', `${V5}//projects/${PRIVATE}`, { headers: asAlice });
      expect(res.status).to.equal(200);
      expect(res.json.id).to.equal(PRIVATE);
    });

    it('answers unknown paths 404 route_not_found with the real text', async () => {
      const res = await call('GET', `${V5}/projectsInvalid`, { headers: asAlice });
      expectError(res, 404, 'route_not_found');
      expect(res.json.error).to.equal('The path you requested has no valid endpoint.');
    });

    it('does not serve versioned routes without a prefix, nor root routes under one', async () => {
      expectError(await call('GET', `/projects/${PRIVATE}`, { headers: asAlice }), 404, 'route_not_found');
      expectError(await call('GET', `${V5}/file_attachments/9/download`), 404, 'route_not_found');
      const download = await call('GET', '/file_attachments/9/download');
      expect(download.status).to.equal(200);
      expect(download.headers['content-type']).to.equal('image/png');
      expect(download.headers['content-disposition']).to.equal(`attachment; filename="plan _.png"; filename*=UTF-8''plan%20%C3%A9.png`);
      const inline = await call('GET', '/file_attachments/9/download?inline=true');
      expect(inline.headers['content-disposition']).to.match(/^inline;/);
    });

    it('answers a method the path does not serve 404 route_not_found, one no route serves 405', async () => {
      expectError(await call('POST', `${V5}/projects/${PRIVATE}`, { headers: asAlice }), 404, 'route_not_found');
      expectError(await call('TRACE', `${V5}/projects/${PRIVATE}`, { headers: asAlice }), 405, 'http_method_not_supported');
      expectError(await call('PROPFIND', `${V5}/nowhere`, { headers: asAlice }), 404, 'route_not_found');
    });

    it('answers JSON for bad percent-encoding in the path and the query', async () => {
      expectError(await call('GET', `${V5}/projects/%E0%A4%A/stories`, { headers: asAlice }), 404, 'route_not_found');
      const res = await call('GET', `${V5}/echo?a=%zz&b=%E0%A4%A`);
      expect(res.status).to.equal(200);
      expect(res.json.query).to.have.keys('a', 'b');
    });

    it('prefers literal segments over parameters', async () => {
      const csv = await call('GET', `${V5}/projects/${PRIVATE}/stories.csv`, { headers: asAlice });
      expect(csv.status).to.equal(200);
      expect(csv.headers['content-type']).to.equal('text/csv; charset=utf-8');
      expect(csv.text).to.equal('id,name\n500,First\n');
    });

    it('answers HEAD like GET without a body', async () => {
      const res = await call('HEAD', `${V5}/projects/${PRIVATE}`, { headers: asAlice });
      expect(res.status).to.equal(200);
      expect(res.text).to.equal('');
      expect(res.headers['x-tracker-project-version']).to.equal('5');
    });
  });

  describe('authentication', () => {
    it('accepts the token in X-TrackerToken, X-ServiceToken or the token query parameter', async () => {
      const variants: RequestOptions[] = [
        { headers: { 'X-TrackerToken': tokens.bob } },
        { headers: { 'X-ServiceToken': tokens.bob } },
        { query: { token: tokens.bob } },
      ];
      for (const options of variants) {
        const res = await call('GET', `${V5}/me`, options);
        expect(res.status, JSON.stringify(options)).to.equal(200);
        expect(res.json.username).to.equal('bob');
      }
    });

    it('answers 401 unauthenticated without credentials, 403 invalid_authentication on an XHR', async () => {
      const plain = await call('GET', `${V5}/projects/${PRIVATE}`);
      expectError(plain, 401, 'unauthenticated');
      const xhr = await call('GET', `${V5}/me`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
      expectError(xhr, 403, 'invalid_authentication');
    });

    it('answers 403 invalid_authentication with the token hint for a bad token anywhere', async () => {
      const variants: RequestOptions[] = [
        { headers: { 'X-TrackerToken': 'nope' } },
        { headers: { 'X-ServiceToken': 'nope' } },
        { query: { token: 'nope' } },
        { headers: { 'X-TrackerToken': '' } },
      ];
      for (const options of variants) {
        const res = await call('GET', `${V5}/projects/${PUBLIC}`, options);
        expectError(res, 403, 'invalid_authentication');
        expect(res.json.error).to.equal('Invalid authentication credentials were presented.');
        expect(res.json.possible_fix).to.match(/token/i);
      }
    });

    it('rejects invalid credentials before authorization, lookups and body parsing', async () => {
      const bad = { 'X-TrackerToken': 'nope' };
      expectError(await call('GET', `${V5}/projects/999`, { headers: bad }), 403, 'invalid_authentication');
      expectError(await call('GET', `${V5}/projects/${PRIVATE}/stories/12345`, { headers: bad }), 403, 'invalid_authentication');
      expectError(await call('POST', `${V5}/projects/${PRIVATE}/stories`, { headers: { ...bad, 'Content-Type': 'application/json' }, rawBody: '{bad' }), 403, 'invalid_authentication');
      expectError(await call('GET', `${V5}/projects/${PRIVATE}?fields=(`, { headers: bad }), 403, 'invalid_authentication');
    });

    it('accepts HTTP Basic with username or email on GET /me only', async () => {
      const byName = await call('GET', `${V5}/me`, { headers: { Authorization: basic('alice', 'alice-password') } });
      expect(byName.status).to.equal(200);
      expect(byName.json.id).to.equal(1);
      const byEmail = await call('GET', `${V5}/me`, { headers: { Authorization: basic('alice@example.com', 'alice-password') } });
      expect(byEmail.json.id).to.equal(1);
      const elsewhere = await call('GET', `${V5}/projects/${PRIVATE}`, { headers: { Authorization: basic('alice', 'alice-password') } });
      expectError(elsewhere, 401, 'unauthenticated');
    });

    it('answers bad Basic credentials on /me 403 with the password hint', async () => {
      for (const authorization of [basic('alice', 'wrong'), basic('nobody', 'x'), 'Basic !!!', 'Basic Zm9v', 'Bearer x']) {
        const res = await call('GET', `${V5}/me`, { headers: { Authorization: authorization } });
        expectError(res, 403, 'invalid_authentication');
        expect(res.json.possible_fix).to.equal('Recheck your name (email address or Tracker username) and password.');
      }
    });
  });

  describe('authorization', () => {
    it('lets anonymous callers GET public projects only', async () => {
      expect((await call('GET', `${V5}/projects/${PUBLIC}`)).status).to.equal(200);
      expectError(await call('PUT', `${V5}/projects/${PUBLIC}`, { body: {} }), 401, 'unauthenticated');
      expectError(await call('GET', `${V5}/projects/${PRIVATE}`), 401, 'unauthenticated');
      expectError(await call('GET', `${V5}/projects/999`), 401, 'unauthenticated');
    });

    it('lets viewers read but not write, members write, owners change settings', async () => {
      expect((await call('GET', `${V5}/projects/${PRIVATE}/stories`, { headers: asCarol })).status).to.equal(200);
      const viewerWrite = await call('POST', `${V5}/projects/${PRIVATE}/stories`, { headers: asCarol, body: { name: 'x' } });
      expectError(viewerWrite, 403, 'unauthorized_operation');
      expect(viewerWrite.json.error).to.equal('Authorization failure.');
      expect(viewerWrite.json.general_problem).to.equal("You aren't authorized to access the requested resource.");
      expect((await call('POST', `${V5}/projects/${PRIVATE}/stories`, { headers: asBob, body: { name: 'x' } })).status).to.equal(200);
      expectError(await call('PUT', `${V5}/projects/${PRIVATE}`, { headers: asBob, body: {} }), 403, 'unauthorized_operation');
      expect((await call('PUT', `${V5}/projects/${PRIVATE}`, { headers: asAlice, body: {} })).status).to.equal(200);
    });

    it('answers non-members 403 on private projects, lets them read public ones but not write', async () => {
      expectError(await call('GET', `${V5}/projects/${PRIVATE}`, { headers: asDave }), 403, 'unauthorized_operation');
      expect((await call('GET', `${V5}/projects/${PUBLIC}`, { headers: asDave })).status).to.equal(200);
      expectError(await call('POST', `${V5}/projects/${PUBLIC}/stories`, { headers: asDave, body: { name: 'x' } }), 403, 'unauthorized_operation');
    });

    it('answers 404 unfound_resource for project ids that do not exist', async () => {
      const res = await call('GET', `${V5}/projects/999`, { headers: asAlice });
      expectError(res, 404, 'unfound_resource');
      expect(res.json.error).to.equal(
        'The object you tried to access could not be found.  It may have been removed by another user, you may be using the ID of another object type, or you may be trying to access a sub-resource at the wrong point in a tree.',
      );
      expectError(await call('GET', `${V5}/projects/abc`, { headers: asAlice }), 404, 'unfound_resource');
      expectError(await call('GET', `${V5}/projects/99999999999999999999`, { headers: asAlice }), 404, 'unfound_resource');
    });

    it('applies the same rules to a project a route finds from another id (project.of)', async () => {
      expectError(await call('GET', `${V5}/stories/500`, { headers: asDave }), 403, 'unauthorized_operation');
      const res = await call('GET', `${V5}/stories/500`, { headers: asBob });
      expect(res.status).to.equal(200);
      expect(res.headers['x-tracker-project-version']).to.equal('5');
      expectError(await call('GET', `${V5}/stories/500`), 401, 'unauthenticated');
    });
  });

  describe('bodies and methods', () => {
    it('hands a JSON object body to the handler, charset allowed', async () => {
      const res = await call('PUT', `${V5}/echo`, { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: { name: 'é' } });
      expect(res.status).to.equal(200);
      expect(res.json.body).to.deep.equal({ name: 'é' });
    });

    it('answers a non-JSON content type 415 content_format_not_found', async () => {
      const res = await call('POST', `${V5}/echo`, { headers: { 'Content-Type': 'text/plain' }, rawBody: '{"a":1}' });
      expectError(res, 415, 'content_format_not_found');
      expectError(await call('POST', `${V5}/echo`, { rawBody: '{"a":1}' }), 415, 'content_format_not_found');
    });

    it('reads a form body as the object a JSON body would be, string values, Rails list elements', async () => {
      const form = { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' };
      const echo = async (rawBody: string) => (await call('POST', `${V5}/echo`, { headers: form, rawBody })).json;
      expect((await echo('name=caf%C3%A9+au+lait&estimate=1&label_ids[]=3&label_ids[]=4&fields=x&token=y')).body)
        .to.deep.equal({ name: 'café au lait', estimate: '1', label_ids: ['3', '4'] });
      expect((await echo('labels[][name]=a&labels[][name]=b&tasks[0][description]=t&tasks[0][complete]=true&toString=1')).body)
        .to.deep.equal({ labels: [{ name: 'a' }, { name: 'b' }], tasks: [{ description: 't', complete: 'true' }], toString: '1' });
      for (const [rawBody, field] of [['__proto__[x]=1', '__proto__'], ['a[b][c][d][e][f][g]=1', 'body'], ['l[][m][]=1', 'l'], ['l[1001]=1', 'body']] as const) {
        const res = await call('POST', `${V5}/echo`, { headers: form, rawBody });
        expectError(res, 400, 'invalid_parameter');
        expect(res.json.validation_errors[0].field, rawBody.slice(0, 30)).to.equal(field);
      }
      expectError(await call('POST', `${V5}/echo`, { headers: { 'Content-Type': 'multipart/form-data; boundary=x' }, rawBody: '--x--' }), 415, 'content_format_not_found');
    });

    it('answers unparsable JSON and non-object JSON 400 could_not_parse_body', async () => {
      const json = { 'Content-Type': 'application/json' };
      for (const rawBody of ['{"a":', '[1,2]', '"text"', '3', 'null']) {
        expectError(await call('POST', `${V5}/echo`, { headers: json, rawBody }), 400, 'could_not_parse_body');
      }
    });

    it('refuses a DELETE with a body, accepts one without', async () => {
      const withBody = await call('DELETE', `${V5}/projects/${PRIVATE}/stories/500`, { headers: asBob, body: { a: 1 } });
      expectError(withBody, 400, 'invalid_parameter');
      expect(withBody.json.validation_errors).to.deep.equal([{ field: 'body', problem: 'DELETE requests must not carry a body.' }]);
      const res = await call('DELETE', `${V5}/projects/${PRIVATE}/stories/500`, { headers: asBob });
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expect(res.headers['x-tracker-project-version']).to.equal('6');
      expect(res.headers['x-service-project-version']).to.equal('6');
    });

    it('treats PATCH as PUT and lets POST simulate PUT, PATCH and DELETE with _method', async () => {
      expect((await call('PATCH', `${V5}/echo`, { body: {} })).json.method).to.equal('PUT');
      expect((await call('POST', `${V5}/echo?_method=PUT`, { body: { a: 1 } })).json.method).to.equal('PUT');
      expect((await call('POST', `${V5}/echo?_method=patch`, { body: {} })).json.method).to.equal('PUT');
      expect((await call('POST', `${V5}/echo?_method=DELETE`)).status).to.equal(204);
    });

    it('does not simulate OPTIONS or GET, nor take _method from the body', async () => {
      const options = await call('POST', `${V5}/echo?_method=OPTIONS`);
      expectError(options, 400, 'invalid_parameter');
      expect(options.json.validation_errors[0].field).to.equal('_method');
      expectError(await call('POST', `${V5}/echo?_method=GET`), 400, 'invalid_parameter');
      const fromBody = await call('POST', `${V5}/echo`, { body: { _method: 'DELETE' } });
      expect(fromBody.json.method).to.equal('POST');
      expect(fromBody.json.body).to.deep.equal({});
    });

    it('never reads query parameters from the body nor the reverse', async () => {
      const res = await call('POST', `${V5}/echo?name=fromQuery`, {
        body: { fields: 'id', envelope: true, date_format: 'millis', token: 'nope', name: 'fromBody' },
      });
      expect(res.status).to.equal(200);
      expect(res.json).to.not.have.property('http_status');
      expect(res.json.body).to.deep.equal({ name: 'fromBody' });
      expect(res.json.query).to.deep.equal({ name: 'fromQuery' });
    });

    it('answers an oversized body 413 request_entity_too_large', async () => {
      const res = await call('POST', `${V5}/echo`, { body: { text: 'x'.repeat(5000) } });
      expectError(res, 413, 'request_entity_too_large');
    });

    it('answers an oversized chunked body 413 as well', async () => {
      const res = await rawExchange(server.port, [
        `POST ${V5}/echo HTTP/1.1`, 'Host: x', 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close', '', '',
      ].join('\r\n') + `1388\r\n${'x'.repeat(5000)}\r\n0\r\n\r\n`);
      expect(res).to.match(/^HTTP\/1\.1 413/);
      expect(res).to.include('"code":"request_entity_too_large"');
    });

    it('answers an oversized chunked body refused mid-upload 413 and keeps the connection for the next request', async () => {
      const head = [`POST ${V5}/echo HTTP/1.1`, 'Host: x', 'Content-Type: application/json', 'Transfer-Encoding: chunked', '', ''].join('\r\n');
      const next = [`POST ${V5}/echo HTTP/1.1`, 'Host: x', 'Content-Type: application/json', 'Content-Length: 12', 'Connection: close', '', '{"name":"n"}'].join('\r\n');
      const res = await rawExchange(server.port, [head + `1388\r\n${'x'.repeat(5000)}\r\n`, `1388\r\n${'y'.repeat(5000)}\r\n0\r\n\r\n` + next]);
      const answers = res.split(/(?=HTTP\/1\.1 )/);
      expect(answers).to.have.length(2);
      expect(answers[0]).to.match(/^HTTP\/1\.1 413/);
      expect(answers[0]).to.include('"code":"request_entity_too_large"');
      expect(answers[1]).to.match(/^HTTP\/1\.1 200/);
      expect(answers[1]).to.include('"name":"n"');
    });

    it('gives raw-body routes the bytes and their content type', async () => {
      const res = await call('POST', `${V5}/projects/${PRIVATE}/uploads`, {
        headers: { ...asBob, 'Content-Type': 'multipart/form-data; boundary=x' }, rawBody: '--x\r\n\r\nabc\r\n--x--',
      });
      expect(res.status).to.equal(200);
      expect(res.json.body).to.deep.equal({ contentType: 'multipart/form-data; boundary=x', size: 17 });
    });

    it('answers OPTIONS preflight 204 with the CORS headers on any path', async () => {
      for (const path of [`${V5}/projects/${PRIVATE}`, '/anything']) {
        const res = await call('OPTIONS', path, { headers: { Origin: 'http://x.test', 'Access-Control-Request-Method': 'PUT' } });
        expect(res.status).to.equal(204);
        expect(res.headers['access-control-allow-origin']).to.equal('*');
        expect(res.headers['access-control-allow-methods']).to.equal('GET, POST, PUT, DELETE, OPTIONS');
        expect(res.headers['access-control-allow-headers']).to.equal(CORS_ALLOW_HEADERS);
      }
    });
  });

  describe('response headers', () => {
    it('sends CORS, pinger, content type and cache control on every response, errors included', async () => {
      for (const res of [
        await call('GET', `${V5}/projects/${PRIVATE}`, { headers: asAlice }),
        await call('GET', `${V5}/projects/${PRIVATE}`),
        await call('GET', `${V5}/nowhere`),
        await call('GET', `${V5}/boom`),
      ]) {
        expect(res.headers['access-control-allow-origin']).to.equal('*');
        expect(res.headers['access-control-allow-credentials']).to.equal('false');
        expect(res.headers['access-control-allow-headers']).to.equal(CORS_ALLOW_HEADERS);
        expect(res.headers['x-tracker-client-pinger-interval']).to.equal('20');
        expect(res.headers['x-service-client-pinger-interval']).to.equal('20');
        expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(res.headers['cache-control']).to.equal('max-age=0, private, must-revalidate');
        expect(res.headers).to.not.have.property('x-powered-by');
        expect(res.headers).to.not.have.property('x-tracker-deprecation-warning');
        expect(res.headers).to.not.have.property('x-tracker-downtime-start');
      }
    });

    it('sends the project version in both spellings on project responses, not on /me nor on errors', async () => {
      const project = await call('GET', `${V5}/projects/${PRIVATE}/stories`, { headers: asAlice });
      expect(project.headers['x-tracker-project-version']).to.equal('5');
      expect(project.headers['x-service-project-version']).to.equal('5');
      const me = await call('GET', `${V5}/me`, { headers: asAlice });
      expect(me.headers).to.not.have.property('x-tracker-project-version');
      const error = await call('GET', `${V5}/projects/${PRIVATE}/stories/404404`, { headers: asAlice });
      expectError(error, 404, 'unfound_resource');
      expect(error.headers).to.not.have.property('x-tracker-project-version');
    });

    it('sends the version after a write as the handler reports it', async () => {
      const res = await call('PUT', `${V5}/projects/${PRIVATE}/stories/500`, { headers: asBob, body: { name: 'n' } });
      expect(res.headers['x-tracker-project-version']).to.equal('6');
    });

    it('sends all four pagination headers in both spellings', async () => {
      const res = await call('GET', `${V5}/projects/${PRIVATE}/stories?limit=2&offset=1`, { headers: asAlice });
      for (const prefix of ['x-tracker', 'x-service']) {
        expect(res.headers[`${prefix}-pagination-total`]).to.equal('3');
        expect(res.headers[`${prefix}-pagination-limit`]).to.equal('2');
        expect(res.headers[`${prefix}-pagination-offset`]).to.equal('1');
        expect(res.headers[`${prefix}-pagination-returned`]).to.equal('2');
      }
      const single = await call('GET', `${V5}/projects/${PRIVATE}`, { headers: asAlice });
      expect(single.headers).to.not.have.property('x-tracker-pagination-total');
    });

    it('answers the stale warning for either request spelling, and ignores it without a project', async () => {
      for (const name of ['X-Tracker-Warn-Unless-Project-Version-Is', 'X-Service-Warn-Unless-Project-Version-Is']) {
        const current = await call('GET', `${V5}/projects/${PRIVATE}/stories`, { headers: { ...asAlice, [name]: '5' } });
        expect(current.headers['x-tracker-warning-project-was-stale']).to.equal('false');
        expect(current.headers['x-service-warning-project-was-stale']).to.equal('false');
        const stale = await call('GET', `${V5}/projects/${PRIVATE}/stories`, { headers: { ...asAlice, [name]: '4' } });
        expect(stale.headers['x-tracker-warning-project-was-stale']).to.equal('true');
      }
      const without = await call('GET', `${V5}/projects/${PRIVATE}/stories`, { headers: asAlice });
      expect(without.headers).to.not.have.property('x-tracker-warning-project-was-stale');
      const me = await call('GET', `${V5}/me`, { headers: { ...asAlice, 'X-Tracker-Warn-Unless-Project-Version-Is': '1' } });
      expect(me.headers).to.not.have.property('x-tracker-warning-project-was-stale');
    });

    it('sends extra service headers a handler returns in both spellings', async () => {
      const res = await call('GET', `${V5}/my/notifications`, { headers: asAlice });
      expect(res.headers['x-tracker-last-notification-timestamp']).to.equal(String(T0));
      expect(res.headers['x-service-last-notification-timestamp']).to.equal(String(T0));
    });
  });

  describe('envelope', () => {
    it('wraps a list with status, data, project version and pagination', async () => {
      const res = await call('GET', `${V5}/projects/${PRIVATE}/stories?envelope=true&limit=1&fields=name`, { headers: asAlice });
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.equal({
        http_status: '200',
        project_version: 5,
        pagination: { total: 3, limit: 1, offset: 0, returned: 1 },
        data: [{ id: 500, name: 'First' }],
      });
    });

    it('carries the stale warning and handler extras', async () => {
      const res = await call('GET', `${V5}/projects/${PRIVATE}?envelope=true`, { headers: { ...asAlice, 'X-Tracker-Warn-Unless-Project-Version-Is': '3' } });
      expect(res.json.warning_project_was_stale).to.equal(true);
      const notes = await call('GET', `${V5}/my/notifications?envelope=true`, { headers: asAlice });
      expect(notes.json.last_notification_timestamp).to.equal(T0);
      expect(notes.json).to.not.have.property('project_version');
    });

    it('puts errors under data with the real status in http_status', async () => {
      const res = await call('GET', `${V5}/projects/${PRIVATE}/stories/404404?envelope=true&fields=name`, { headers: asAlice });
      expect(res.status).to.equal(200);
      expect(res.json.http_status).to.equal('404');
      expect(res.json.data.code).to.equal('unfound_resource');
      expect(res.json.data.kind).to.equal('error');
    });

    it('answers an enveloped delete 200 with http_status 204 and no data', async () => {
      const res = await call('DELETE', `${V5}/projects/${PRIVATE}/stories/501?envelope=true`, { headers: asBob });
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.equal({ http_status: '204', project_version: 6 });
    });

    it('reports creates with their status', async () => {
      const res = await call('POST', `${V5}/projects/${PRIVATE}/stories?envelope=true&fields=name`, { headers: asBob, body: { name: 'New' } });
      expect(res.json).to.deep.equal({ http_status: '200', project_version: 6, data: { id: 599, name: 'New' } });
    });

    it('always envelopes and uses millis on routes that say so', async () => {
      const res = await call('GET', `${V5}/people/1/notifications/since/${T0}`, { headers: asAlice });
      expect(res.json).to.deep.equal({ http_status: '200', data: [{ kind: 'notification', id: 1, created_at: T0 }] });
    });

    it('is off for any other value than true', async () => {
      const res = await call('GET', `${V5}/projects/${PRIVATE}?envelope=1`, { headers: asAlice });
      expect(res.json.kind).to.equal('project');
    });
  });

  describe('errors', () => {
    it('answers an unexpected error 500 unhandled_condition, logged, without internals', async () => {
      const res = await call('GET', `${V5}/boom?token=${tokens.alice}`);
      expectError(res, 500, 'unhandled_condition');
      expect(res.json.error).to.equal('An unexpected condition occurred.');
      expect(res.text).to.not.include('secret internals');
      expect(world.logged).to.have.length(1);
      expect(String(world.logged[0]!.details!.error)).to.include('secret internals');
      expect(world.logged[0]!.details!.path).to.equal(`${V5}/boom`);
      expect(JSON.stringify(world.logged)).to.not.include(tokens.alice);
    });

    it('answers a DomainError with an uncatalogued code 500 and logs it', async () => {
      expectError(await call('GET', `${V5}/strange-error`), 500, 'unhandled_condition');
      expect(world.logged).to.have.length(1);
    });

    it('renders validation errors with one entry per field', async () => {
      const res = await call('POST', `${V5}/projects/${PRIVATE}/stories`, { headers: asBob, body: {} });
      expectError(res, 400, 'invalid_parameter');
      expect(res.json.error).to.equal('One or more request parameters was missing or invalid.');
      expect(res.json.validation_errors).to.deep.equal([{ field: 'name', problem: 'is required. must be a string.' }]);
      expect(res.json.general_problem).to.equal('is required. must be a string.');
      expect(res.json).to.not.have.any.keys('requirement', 'possible_fix');
    });

    it('answers JSON to requests node cannot parse and to oversized headers', async () => {
      const garbage = await rawExchange(server.port, 'GET /services/v5/me HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
      expect(garbage).to.match(/^HTTP\/1\.1 400/);
      expect(garbage).to.include('application/json; charset=utf-8');
      expect(garbage).to.include('"code":"invalid_parameter"');
      expect(garbage).to.include('Access-Control-Allow-Origin: *');
      const huge = await rawExchange(server.port, `GET /services/v5/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20000)}\r\n\r\n`);
      expect(huge).to.match(/^HTTP\/1\.1 413/);
      expect(huge).to.include('"code":"request_entity_too_large"');
    });
  });

  describe('creates and configuration', () => {
    it('answers creates 200 by default', async () => {
      const res = await call('POST', `${V5}/projects/${PRIVATE}/stories`, { headers: asBob, body: { name: 'New' } });
      expect(res.status).to.equal(200);
      expect(res.json).to.include({ kind: 'story', id: 599, name: 'New', created_at: '2017-05-03T23:29:39Z' });
      expect(res.headers['x-tracker-project-version']).to.equal('6');
    });

    it('answers creates 201, and sends deprecation and downtime, when configured', async () => {
      const built = fakeApp({ createdStatus: 201, deprecationWarning: '2026-01-01T00:00:00Z|going away', downtime: { start: '2026-02-01T00:00:00Z', finish: '2026-02-01T02:00:00Z' } });
      const other = await startServer(built.app);
      try {
        const res = await other.request('POST', `${V5}/projects/${PRIVATE}/stories`, { headers: asBob, body: { name: 'New' } });
        expect(res.status).to.equal(201);
        expect(res.headers['x-service-deprecation-warning']).to.equal('2026-01-01T00:00:00Z|going away');
        expect(res.headers['x-tracker-deprecation-warning']).to.equal('2026-01-01T00:00:00Z|going away');
        expect(res.headers['x-service-downtime-start']).to.equal('2026-02-01T00:00:00Z');
        expect(res.headers['x-tracker-downtime-finish']).to.equal('2026-02-01T02:00:00Z');
        const enveloped = await other.request('GET', `${V5}/nowhere?envelope=true`);
        expect(enveloped.json.http_status).to.equal('404');
        expect(enveloped.json.deprecation_warning).to.equal('2026-01-01T00:00:00Z|going away');
        expect(enveloped.json.downtime).to.deep.equal({ start: '2026-02-01T00:00:00Z', finish: '2026-02-01T02:00:00Z' });
      } finally {
        await other.close();
      }
    });
  });

  describe('byte cache and ETag', () => {
    const story = `${V5}/projects/${PRIVATE}/stories/500`;

    it('serves a repeated cacheable GET from bytes until the project version moves', async () => {
      const first = await call('GET', story, { headers: asAlice });
      const second = await call('GET', story, { query: { token: tokens.alice } });
      expect(second.text).to.equal(first.text);
      expect(second.headers.etag).to.equal(first.headers.etag);
      expect(world.calls['handler:story']).to.equal(1);
      world.versions.set(PRIVATE, 6);
      const third = await call('GET', story, { headers: asAlice });
      expect(world.calls['handler:story']).to.equal(2);
      expect(third.headers.etag).to.not.equal(first.headers.etag);
      expect(third.headers['x-tracker-project-version']).to.equal('6');
    });

    it('keys the cache by role and query', async () => {
      await call('GET', story, { headers: asAlice });
      await call('GET', story, { headers: asBob });
      await call('GET', `${story}?fields=name`, { headers: asBob });
      await call('GET', `${story}?fields=name`, { headers: asBob });
      expect(world.calls['handler:story']).to.equal(3);
    });

    it('answers If-None-Match with the current ETag 304, without a body', async () => {
      const first = await call('GET', story, { headers: asAlice });
      const etag = first.headers.etag as string;
      expect(etag).to.match(/^"[A-Za-z0-9_-]+"$/);
      const again = await call('GET', story, { headers: { ...asAlice, 'If-None-Match': etag } });
      expect(again.status).to.equal(304);
      expect(again.text).to.equal('');
      expect(again.headers.etag).to.equal(etag);
      expect(again.headers['access-control-allow-origin']).to.equal('*');
      world.versions.set(PRIVATE, 9);
      const changed = await call('GET', story, { headers: { ...asAlice, 'If-None-Match': etag } });
      expect(changed.status).to.equal(200);
    });

    it('still checks access before answering from the cache', async () => {
      await call('GET', story, { headers: asAlice });
      expectError(await call('GET', story, { headers: asDave }), 403, 'unauthorized_operation');
      expectError(await call('GET', story), 401, 'unauthenticated');
    });

    it('does not cache bytes rendered while the version moved', async () => {
      const path = `${V5}/projects/${PRIVATE}`;
      world.duringNextRender = () => world.versions.set(PRIVATE, 6);
      await call('GET', path, { headers: asAlice });
      await call('GET', path, { headers: asAlice });
      await call('GET', path, { headers: asAlice });
      expect(world.calls['handler:project']).to.equal(2);
    });

    it('gives non-cacheable GETs an ETag from their bytes and honours If-None-Match', async () => {
      const path = `${V5}/projects/${PRIVATE}/stories`;
      const first = await call('GET', path, { headers: asAlice });
      expect(first.headers.etag).to.match(/^"/);
      const again = await call('GET', path, { headers: { ...asAlice, 'If-None-Match': `W/${first.headers.etag}` } });
      expect(again.status).to.equal(304);
    });
  });
});

/** Sends raw bytes (the parts 50 ms apart) and returns everything the server answers until it closes the connection. */
function rawExchange(port: number, request: string | readonly string[]): Promise<string> {
  const [first, ...rest] = typeof request === 'string' ? [request] : request;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', (error) => (chunks.length > 0 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(error)));
    socket.write(first!);
    rest.forEach((part, index) => setTimeout(() => socket.write(part), 50 * (index + 1)));
  });
}
