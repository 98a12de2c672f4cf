// `fields`, null omission, date_format and the error catalogue: the grammar and the serializer as units,
// then end to end through the app.

import { expect } from 'chai';
import { errorCatalogue, toErrorBody, apiError, classifyThrown } from '../../src/api/error-catalogue.js';
import { DEFAULT_SELECTION, parseFields, type FieldSelection } from '../../src/api/fields-selection.js';
import { ResponseCache, entrySize, matchesIfNoneMatch } from '../../src/api/response-cache.js';
import { DomainError } from '../../src/domain/errors.js';
import { fakeApp, PRIVATE, T0, tokens, type FakeWorld } from './support/conventions-fixture.js';
import { startServer, type TestServer } from './support/http-client.js';

const V5 = '/services/v5';
const asAlice = { 'X-TrackerToken': tokens.alice };

/** A selection as plain data, for readable assertions. */
function shape(selection: FieldSelection): unknown {
  const names: Record<string, unknown> = {};
  for (const [name, nested] of selection.names) names[name] = nested ? shape(nested) : null;
  return selection.defaults ? { ':default': true, ...names } : names;
}

describe('fields grammar', () => {
  it('parses comma lists, :default at any level and nested parentheses', () => {
    expect(shape(parseFields('name,story_type'))).to.deep.equal({ name: null, story_type: null });
    expect(shape(parseFields(':default,label_id'))).to.deep.equal({ ':default': true, label_id: null });
    expect(shape(parseFields('comments(text,file_attachments(:default,uploader))'))).to.deep.equal({
      comments: { text: null, file_attachments: { ':default': true, uploader: null } },
    });
    expect(shape(parseFields(' name , owned_by( name ) '))).to.deep.equal({ name: null, owned_by: { name: null } });
  });

  it('treats an absent or empty fields parameter as the defaults', () => {
    expect(parseFields(undefined)).to.equal(DEFAULT_SELECTION);
    expect(parseFields('')).to.equal(DEFAULT_SELECTION);
  });

  it('merges a name given twice', () => {
    expect(shape(parseFields('owned_by(name),owned_by(email)'))).to.deep.equal({ owned_by: { name: null, email: null } });
  });

  for (const malformed of ['name(', 'name)', 'a,,b', 'a,', ',a', ':foo', ':defaults', ':default(x)', 'a(b))', 'a()', 'na-me', 'a b', 'a((b))', 'a(b(c(d(e(f(g(h(i(j))))))))))']) {
    it(`rejects ${JSON.stringify(malformed)} as invalid_parameter on fields`, () => {
      try {
        parseFields(malformed);
        expect.fail('should have thrown');
      } catch (error) {
        expect(error).to.be.instanceOf(DomainError);
        expect((error as DomainError).code).to.equal('invalid_parameter');
        expect((error as DomainError).details.validation_errors![0]!.field).to.equal('fields');
      }
    });
  }
});

describe('error catalogue', () => {
  const specCodes = [
    'api_external_error', 'api_internal_error', 'cant_parse_json', 'capability_access_denied', 'component_unavailable',
    'content_format_not_found', 'could_not_parse_body', 'deadlock', 'duplicate_entry', 'enterprise_signup_error',
    'http_method_not_supported', 'https_required', 'integration_error', 'invalid_authentication', 'invalid_parameter',
    'invalid_upload', 'not_acceptable', 'request_entity_too_large', 'requires_get', 'requires_post', 'route_not_found',
    'server_under_load', 'timeout', 'unauthenticated', 'unauthorized_operation', 'unfound_resource', 'unhandled_condition',
    'xhr_required',
  ];
  /** Storyline's own codes, beside the spec's (recorded in the catalogue's header). */
  const storylineCodes = ['storage_full', 'too_many_requests'];

  it('holds every code of the spec, and the codes Storyline adds, with a status and a distinct text', () => {
    expect(Object.keys(errorCatalogue).sort()).to.deep.equal([...specCodes, ...storylineCodes].sort());
    const texts = new Set(Object.values(errorCatalogue).map((entry) => entry.error));
    expect(texts.size).to.equal(specCodes.length + storylineCodes.length);
    for (const entry of Object.values(errorCatalogue)) expect(entry.status).to.be.within(400, 599);
  });

  it('pins the statuses and texts the facts record', () => {
    expect(errorCatalogue.unfound_resource.status).to.equal(404);
    expect(errorCatalogue.invalid_parameter).to.deep.equal({ status: 400, error: 'One or more request parameters was missing or invalid.' });
    expect(errorCatalogue.unauthorized_operation).to.deep.equal({ status: 403, error: 'Authorization failure.' });
    expect(errorCatalogue.route_not_found).to.deep.equal({ status: 404, error: 'The path you requested has no valid endpoint.' });
    expect(errorCatalogue.unhandled_condition).to.deep.equal({ status: 500, error: 'An unexpected condition occurred.' });
    expect(errorCatalogue.api_internal_error.error).to.include('transient.  The failure has been logged.');
    expect(errorCatalogue.unauthenticated.status).to.equal(401);
    expect(errorCatalogue.too_many_requests.status).to.equal(429);
  });

  it('omits empty optional keys and merges validation errors per field', () => {
    expect(toErrorBody(apiError('route_not_found')).body).to.deep.equal({
      kind: 'error', code: 'route_not_found', error: 'The path you requested has no valid endpoint.',
    });
    const { status, body } = toErrorBody(apiError('invalid_parameter', {
      requirement: 'r', general_problem: '', validation_errors: [{ field: 'a', problem: 'x.' }, { field: 'a', problem: 'y.' }, { field: 'b', problem: 'z.' }],
    }));
    expect(status).to.equal(400);
    expect(body).to.deep.equal({
      kind: 'error', code: 'invalid_parameter', error: 'One or more request parameters was missing or invalid.', requirement: 'r',
      validation_errors: [{ field: 'a', problem: 'x. y.' }, { field: 'b', problem: 'z.' }],
    });
    expect(toErrorBody(apiError('invalid_parameter', { validation_errors: [] })).body).to.not.have.property('validation_errors');
  });

  it('turns anything but a catalogued DomainError into an unexpected unhandled_condition', () => {
    expect(classifyThrown(new TypeError('x'))).to.deep.include({ unexpected: true });
    expect(classifyThrown(new DomainError('made_up' as never)).error.code).to.equal('unhandled_condition');
    expect(classifyThrown(apiError('deadlock'))).to.deep.include({ unexpected: false });
  });
});

describe('response cache', () => {
  it('evicts the least recently used entry', () => {
    const cache = new ResponseCache({ entries: 2, bytes: 1 << 20 });
    const entry = (n: number) => ({ status: 200, headers: {}, body: Buffer.from(String(n)) });
    cache.set('a', entry(1));
    cache.set('b', entry(2));
    cache.get('a');
    cache.set('c', entry(3));
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')?.body.toString()).to.equal('1');
    expect(cache.size).to.equal(2);
    const off = new ResponseCache({ entries: 0, bytes: 1 << 20 });
    off.set('a', entry(1));
    expect(off.size).to.equal(0);
  });

  it('holds at most its byte budget, counting bodies, keys and headers, least recently used out first', () => {
    const body = (n: number) => ({ status: 200, headers: { ETag: '"e"' }, body: Buffer.alloc(n) });
    const sizeOf = (key: string, n: number) => entrySize(key, body(n));
    const budget = sizeOf('a', 1000) + sizeOf('b', 1000) + 10;
    const cache = new ResponseCache({ entries: 100, bytes: budget });
    cache.set('a', body(1000));
    cache.set('b', body(1000));
    expect(cache.bytes).to.equal(sizeOf('a', 1000) + sizeOf('b', 1000));
    cache.get('a');
    cache.set('c', body(1000));
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')).to.not.equal(undefined);
    expect(cache.bytes).to.be.at.most(budget);
    // Replacing an entry accounts for its new size only.
    cache.set('a', body(10));
    expect(cache.bytes).to.equal(sizeOf('a', 10) + sizeOf('c', 1000));
    // An entry larger than the whole budget is not kept, and evicts nothing.
    cache.set('huge', body(budget));
    expect(cache.get('huge')).to.equal(undefined);
    expect(cache.size).to.equal(2);
    expect(entrySize('k', body(5000))).to.be.greaterThan(5000);
  });

  it('never exceeds the budget under many entries of mixed sizes', () => {
    const cache = new ResponseCache({ entries: 1_000_000, bytes: 64 * 1024 });
    for (let i = 0; i < 2000; i++) {
      cache.set(`key ${i % 300}`, { status: 200, headers: {}, body: Buffer.alloc((i * 7919) % 5000) });
      expect(cache.bytes).to.be.at.most(64 * 1024);
    }
    expect(cache.size).to.be.greaterThan(10);
  });

  it('matches If-None-Match lists, weak tags and *', () => {
    expect(matchesIfNoneMatch('"x", "y"', '"y"')).to.equal(true);
    expect(matchesIfNoneMatch('W/"y"', '"y"')).to.equal(true);
    expect(matchesIfNoneMatch('*', '"y"')).to.equal(true);
    expect(matchesIfNoneMatch('"x"', '"y"')).to.equal(false);
    expect(matchesIfNoneMatch(undefined, '"y"')).to.equal(false);
  });
});

describe('fields, nulls and dates over HTTP', () => {
  let server: TestServer;
  let world: FakeWorld;
  const get = async (path: string) => {
    const res = await server.request('GET', `${V5}${path}`, { headers: asAlice });
    expect(res.status, res.text).to.equal(200);
    return res.json;
  };

  beforeEach(async () => {
    const built = fakeApp({ responseCacheEntries: 0 });
    world = built.world;
    server = await startServer(built.app);
  });
  afterEach(() => server.close());

  const stories = `/projects/${PRIVATE}/stories`;
  const story = `${stories}/500`;

  it('returns the default attributes, nested defaults, ISO datetimes, and omits nulls', async () => {
    expect(await get(story)).to.deep.equal({
      kind: 'story', id: 500, project_id: PRIVATE, name: 'First', story_type: 'feature', estimate: 2, owned_by_id: 2,
      labels: [
        { kind: 'label', id: 100, project_id: PRIVATE, name: 'alpha', created_at: '2017-05-03T23:29:39Z' },
        { kind: 'label', id: 101, project_id: PRIVATE, name: 'beta', created_at: '2017-05-03T23:29:39Z' },
      ],
      created_at: '2017-05-03T23:29:39Z', updated_at: '2017-05-03T23:29:40Z',
    });
  });

  it('keeps empty arrays and omits a missing single association', async () => {
    const third = await get(`${stories}/502?fields=owned_by,labels,tasks`);
    expect(third).to.deep.equal({ id: 502, labels: [{ kind: 'label', id: 101, project_id: PRIVATE, name: 'beta', created_at: '2017-05-03T23:29:39Z' }], tasks: [] });
    const second = await get(`${stories}/501?fields=labels,label_ids`);
    expect(second).to.deep.equal({ id: 501, labels: [], label_ids: [] });
  });

  it('returns only id and the named fields, kind only when named', async () => {
    expect(await get(`${story}?fields=name,story_type`)).to.deep.equal({ id: 500, name: 'First', story_type: 'feature' });
    expect(await get(`${story}?fields=kind,name`)).to.deep.equal({ kind: 'story', id: 500, name: 'First' });
    expect(await get(`${story}?fields=id`)).to.deep.equal({ id: 500 });
  });

  it('ignores names a type does not know', async () => {
    expect(await get(`${story}?fields=name,no_such_thing,secret(x)`)).to.deep.equal({ id: 500, name: 'First' });
  });

  it('replaces an id by its nested form when the association is an alternative', async () => {
    const res = await get(`${story}?fields=:default,owned_by`);
    expect(res).to.not.have.property('owned_by_id');
    expect(res.owned_by).to.deep.equal({ kind: 'person', id: 2, name: 'Bob Member', email: 'bob@example.com', initials: 'BM', username: 'bob' });
    const both = await get(`${story}?fields=owned_by_id,owned_by(name)`);
    expect(both).to.deep.equal({ id: 500, owned_by_id: 2, owned_by: { id: 2, name: 'Bob Member' } });
  });

  it('adds an id named beside its nested default (:default,label_id, as recorded)', async () => {
    const [epic] = await get(`/projects/${PRIVATE}/epics?fields=:default,label_id`);
    expect(epic.label_id).to.equal(100);
    expect(epic.label).to.include({ id: 100, name: 'alpha' });
    const [plain] = await get(`/projects/${PRIVATE}/epics`);
    expect(plain.label).to.include({ id: 100, name: 'alpha' });
    expect(plain).to.not.have.property('label_id');
    const [idOnly] = await get(`/projects/${PRIVATE}/epics?fields=label_id`);
    expect(idOnly).to.deep.equal({ id: 300, label_id: 100 });
  });

  it('keeps both forms when the association is not an alternative', async () => {
    const res = await get(`${story}?fields=:default,label_ids`);
    expect(res.label_ids).to.deep.equal([100, 101]);
    expect(res.labels).to.have.length(2);
  });

  it('returns X_ids computed from the loader when the document does not store them', async () => {
    expect(await get(`${story}?fields=task_ids,comment_ids`)).to.deep.equal({ id: 500, task_ids: [700, 701], comment_ids: [800] });
  });

  it('renders nested selections at any depth with one loader call per association', async () => {
    const res = await get(`${stories}?fields=name,comments(text,file_attachments(:default,uploader))`);
    expect(res).to.deep.equal([
      { id: 500, name: 'First', comments: [{ id: 800, text: 'hello', file_attachments: [
        { kind: 'file_attachment', id: 900, filename: 'a.png', size: 10, uploader: { kind: 'person', id: 1, name: 'Alice Owner', email: 'alice@example.com', initials: 'AO', username: 'alice' } },
      ] }] },
      { id: 501, name: 'Second', comments: [{ id: 801, text: 'world', file_attachments: [
        { kind: 'file_attachment', id: 901, filename: 'b.png', size: 20, uploader: { kind: 'person', id: 3, name: 'Carol Viewer', email: 'carol@example.com', initials: 'CV', username: 'carol' } },
      ] }] },
      { id: 502, name: 'Third', comments: [] },
    ]);
    expect(world.calls['load:comments']).to.equal(1);
    expect(world.calls['load:file_attachments']).to.equal(1);
    expect(world.calls['load:uploader']).to.equal(1);
  });

  it('computes computed attributes in one batch, only when selected', async () => {
    await get(stories);
    expect(world.calls['computed:url']).to.equal(undefined);
    const res = await get(`${stories}?fields=url`);
    expect(res.map((s: { url: string }) => s.url)).to.deep.equal([500, 501, 502].map((id) => `http://example.test/story/show/${id}`));
    expect(world.calls['computed:url']).to.equal(1);
  });

  it('renders datetimes as integer ms with date_format=millis, nested ones too', async () => {
    const res = await get(`${story}?date_format=millis&fields=created_at,updated_at,labels(created_at)`);
    expect(res).to.deep.equal({ id: 500, created_at: T0, updated_at: T0 + 1000, labels: [{ id: 100, created_at: T0 }, { id: 101, created_at: T0 }] });
  });

  it('answers a malformed fields parameter 400 invalid_parameter', async () => {
    const res = await server.request('GET', `${V5}${story}?fields=name(`, { headers: asAlice });
    expect(res.status).to.equal(400);
    expect(res.json.code).to.equal('invalid_parameter');
    expect(res.json.validation_errors[0].field).to.equal('fields');
  });

  it('does not apply fields to errors', async () => {
    const res = await server.request('GET', `${V5}${stories}/9999?fields=name`, { headers: asAlice });
    expect(res.status).to.equal(404);
    expect(res.json).to.include.keys('kind', 'code', 'error');
  });
});
