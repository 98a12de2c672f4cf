// The OpenAPI document (src/api/openapi/): a valid OpenAPI 3.1 document, generated from the route table,
// listing exactly the routes the app serves, and stating answers the app really gives: every GET of a
// seeded server (with the default fields and with every attribute and nested resource named) and a
// sample of writes and refusals are checked against the response schemas the document states for them,
// with ajv's JSON Schema 2020-12 (the dialect of OpenAPI 3.1).
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { openApiPath } from '../../src/api/openapi/document.js';
import { VERSION_PREFIXES } from '../../src/api/route-matcher.js';
import type { RouteDefinition } from '../../src/api/route-table.js';
import type { TestResponse } from './support/http-client.js';
import { fillPath, routeWorld, type RouteWorld } from './support/route-world.js';
import { storylineApp } from './support/storyline-app.js';

type Json = any;

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

const METHODS = ['get', 'post', 'put', 'delete'] as const;

/** `GET /projects/{project_id}` for every operation of the document. */
function documentedOperations(doc: Json): string[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** The answers of a document, checked against the schemas it states for them. */
class AnswerChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });

  constructor(private readonly doc: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, 'openapi.json');
  }

  /** Problems of `res` as the answer of `method pathTemplate` ([] when the document states it). */
  problems(method: string, pathTemplate: string, res: TestResponse): string[] {
    const where = `${method} ${pathTemplate} -> ${res.status}`;
    const operation = this.doc.paths[pathTemplate]?.[method.toLowerCase()];
    if (!operation) return [`${where}: no such operation`];
    let response = operation.responses[String(res.status)];
    let pointer = `#/paths/${escape(pathTemplate)}/${method.toLowerCase()}/responses/${res.status}`;
    if (!response) return [`${where}: status not stated (${res.text.slice(0, 200)})`];
    if (response.$ref) {
      pointer = response.$ref;
      response = this.doc.components.responses[response.$ref.split('/').at(-1)];
    }
    const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (res.status === 204) return res.text === '' ? [] : [`${where}: a body on 204`];
    const content = response.content ?? {};
    const stated = Object.keys(content).find((type) => type === mediaType || (type.endsWith('/*') && mediaType.startsWith(type.slice(0, -1))) || type === '*/*');
    if (!stated) return [`${where}: content type ${mediaType} not stated (${Object.keys(content).join(', ')})`];
    if (!content[stated].schema) return [];
    const validate = this.ajv.getSchema(`openapi.json${pointer}/content/${escape(stated)}/schema`);
    if (!validate) return [`${where}: no schema at ${pointer}`];
    if (validate(res.json)) return [];
    return [`${where}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })} in ${res.text.slice(0, 300)}`];
  }
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

describe('API: the OpenAPI document', function () {
  this.timeout(180_000);
  let world: RouteWorld;
  let doc: Json;
  let checker: AnswerChecker;
  const owner = () => world.people[0]!;

  before(async () => {
    world = await routeWorld();
    const res = await world.app.api('GET', '/openapi.json');
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    doc = res.json;
    checker = new AnswerChecker(doc);
  });
  after(() => world?.app.close());

  /** Values for the query parameters an operation requires (the stories of the bulk read, a search). */
  const requiredQuery = (operation: Json): Record<string, string> => {
    const values: Record<string, string> = { ids: world.ids['story_id']!.join(','), query: 'fuzz' };
    const names = (operation.parameters as Json[]).filter((parameter) => parameter.in === 'query' && parameter.required).map((parameter) => parameter.name as string);
    return Object.fromEntries(names.map((name) => [name, values[name] ?? '1']));
  };

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 2000)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(doc.openapi).to.equal('3.1.0');
  });

  it('is served under every version prefix without credentials, naming that prefix as its server, and revalidates with its ETag', async () => {
    for (const prefix of VERSION_PREFIXES.map((parts) => `/${parts.join('/')}`)) {
      const res = await world.app.server.request('GET', `${prefix}/openapi.json`);
      expect(res.status, prefix).to.equal(200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.json.servers, prefix).to.deep.equal([{ url: prefix }]);
      expect(res.json.paths).to.deep.equal(doc.paths);
      const again = await world.app.server.request('GET', `${prefix}/openapi.json`, { headers: { 'If-None-Match': String(res.headers['etag']) } });
      expect(again.status, prefix).to.equal(304);
    }
  });

  it('lists every route the app serves, each once, and no other', () => {
    const served = world.app.storyline.routes.filter((route: RouteDefinition) => route.unlisted !== true);
    const expected = new Set(served.map((route) => `${route.method} ${openApiPath(route.path)}`));
    expect(new Set(documentedOperations(doc))).to.deep.equal(expected);
    expect(served.length).to.be.greaterThan(90);
    expect(doc.paths).to.include.keys('/projects/{project_id}/webhooks', '/source_commits', '/projects/{project_id}/activity/stream', '/openapi.json', '/health');
    const ids = documentedOperations(doc).map((key) => {
      const [method, path] = key.split(' ');
      return doc.paths[path!][method!.toLowerCase()].operationId;
    });
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('names tags that every operation uses, and uses no other', () => {
    const used = new Set(documentedOperations(doc).flatMap((key) => {
      const [method, path] = key.split(' ');
      return doc.paths[path!][method!.toLowerCase()].tags as string[];
    }));
    expect(new Set(doc.tags.map((tag: { name: string }) => tag.name))).to.deep.equal(used);
  });

  it('serves every operation it lists (a bad token is refused, never route_not_found), and a path it lacks is not served', async () => {
    const unserved: string[] = [];
    for (const key of documentedOperations(doc)) {
      const [method, template] = key.split(' ') as [string, string];
      const server = doc.paths[template].servers?.[0]?.url ?? doc.servers[0].url;
      const path = `${server === '/' ? '' : server}${template.replace(/\{([a-z_]+)\}/g, (_, name: string) => world.ids[name]?.[0] ?? '1')}`;
      const res = await world.app.server.request(method, path, { headers: { 'X-TrackerToken': 'not-a-token' } });
      // An always-enveloped route answers its errors enveloped too.
      const [status, code] = res.json?.http_status ? [Number(res.json.http_status), res.json.data?.code] : [res.status, res.json?.code];
      if (status !== 403 || code !== 'invalid_authentication') unserved.push(`${method} ${path} -> ${status} ${code}`);
    }
    expect(unserved).to.deep.equal([]);
    for (const path of ['/services/v5/projects/1/not_a_resource', '/services/v5/openapi.yaml', '/docs/nothing/here']) {
      const res = await world.app.server.request('GET', path);
      expect(res.status, path).to.equal(404);
      expect(res.json.code, path).to.equal('route_not_found');
    }
  });

  it('states the answer of every GET route of a seeded server, with the default fields and with every attribute and nested resource named', async () => {
    const problems: string[] = [];
    for (const key of documentedOperations(doc).filter((operation) => operation.startsWith('GET '))) {
      const template = key.slice(4);
      if (doc.paths[template].servers) continue; // the site root's routes: checked below
      const path = fillPath(template.replace(/\{([a-z_]+)\}/g, ':$1'), world.ids);
      const required = requiredQuery(doc.paths[template].get);
      const plain = await world.app.api('GET', path, { as: owner(), query: required });
      problems.push(...checker.problems('GET', template, plain));
      const success = doc.paths[template].get.responses['200']?.content?.['application/json']?.schema;
      const type = success?.$ref ?? success?.items?.$ref;
      if (!type) continue;
      const names = Object.keys(doc.components.schemas[type.split('/').at(-1)].properties);
      const everything: Record<string, string>[] = [{ ...required, fields: names.join(',') }, { ...required, fields: names.join(','), date_format: 'millis' }];
      for (const query of everything) {
        problems.push(...checker.problems('GET', template, await world.app.api('GET', path, { as: owner(), query })));
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('states the sample answers a client meets most: stories, a story with its tasks and owners, epics, labels, iterations, members, me, activity', async () => {
    const project = world.ids['project_id']![0]!;
    const story = world.ids['story_id']![0]!;
    const samples: Array<[string, string, Record<string, string>?]> = [
      ['/projects/{project_id}/stories', `/projects/${project}/stories`, { limit: '2' }],
      ['/projects/{project_id}/stories/{story_id}', `/projects/${project}/stories/${story}`, { fields: ':default,tasks,owners' }],
      ['/projects/{project_id}/epics', `/projects/${project}/epics`],
      ['/projects/{project_id}/labels', `/projects/${project}/labels`],
      ['/projects/{project_id}/iterations', `/projects/${project}/iterations`, { scope: 'current_backlog' }],
      ['/projects/{project_id}/memberships', `/projects/${project}/memberships`],
      ['/me', '/me'],
      ['/projects/{project_id}/activity', `/projects/${project}/activity`, { limit: '5' }],
    ];
    const problems: string[] = [];
    for (const [template, path, query] of samples) {
      const res = await world.app.api('GET', path, { as: owner(), ...(query ? { query } : {}) });
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).to.equal(200);
      problems.push(...checker.problems('GET', template, res));
    }
    expect(problems).to.deep.equal([]);
  });

  it('states the answers of writes and of the site root routes', async () => {
    const project = world.ids['project_id']![0]!;
    const story = world.ids['story_id']![0]!;
    const problems: string[] = [];
    const created = await world.app.api('POST', `/projects/${project}/labels`, { as: owner(), body: { name: 'documented' } });
    problems.push(...checker.problems('POST', '/projects/{project_id}/labels', created));
    const task = await world.app.api('POST', `/projects/${project}/stories/${story}/tasks`, { as: owner(), body: { description: 'checked', complete: 'false' } });
    problems.push(...checker.problems('POST', '/projects/{project_id}/stories/{story_id}/tasks', task));
    const changed = await world.app.api('PUT', `/projects/${project}/stories/${story}`, { as: owner(), body: { estimate: 2, description: 'stated' } });
    problems.push(...checker.problems('PUT', '/projects/{project_id}/stories/{story_id}', changed));
    const removed = await world.app.api('DELETE', `/projects/${project}/labels/${created.json.id}`, { as: owner() });
    problems.push(...checker.problems('DELETE', '/projects/{project_id}/labels/{label_id}', removed));
    expect(removed.status).to.equal(204);
    for (const path of ['/health', '/']) problems.push(...checker.problems('GET', path, await world.app.server.request('GET', path)));
    const csv = await world.app.api('GET', `/projects/${project}/iterations/1/analytics.csv`, { as: owner() });
    problems.push(...checker.problems('GET', '/projects/{project_id}/iterations/{number}/analytics.csv', csv));
    expect(problems).to.deep.equal([]);
  });

  it('states the error hashes of refused requests (400, 401, 403, 404)', async () => {
    const project = world.ids['project_id']![0]!;
    const outsider = world.people[3]!;
    const problems: string[] = [];
    const refusals: Array<[string, string, string, TestResponse]> = [
      ['POST', '/projects/{project_id}/labels', 'invalid_parameter', await world.app.api('POST', `/projects/${project}/labels`, { as: owner(), body: { name: 42 } })],
      ['GET', '/projects/{project_id}/stories', 'invalid_parameter', await world.app.api('GET', `/projects/${project}/stories`, { as: owner(), query: { fields: 'name(' } })],
      ['GET', '/projects/{project_id}/stories/{story_id}', 'unfound_resource', await world.app.api('GET', `/projects/${project}/stories/999999`, { as: owner() })],
      ['GET', '/me', 'unauthenticated', await world.app.api('GET', '/me')],
      ['GET', '/projects/{project_id}', 'unauthorized_operation', await world.app.api('GET', `/projects/${project}`, { as: outsider })],
    ];
    for (const [method, template, code, res] of refusals) {
      expect(res.json?.code, `${method} ${template}: ${res.text}`).to.equal(code);
      problems.push(...checker.problems(method, template, res));
    }
    expect(problems).to.deep.equal([]);
  });

  it('states the failures of the server itself: 500 and 503 on every operation, 507 storage_full on every write', () => {
    const missing: string[] = [];
    for (const key of documentedOperations(doc)) {
      const [method, path] = key.split(' ') as [string, string];
      const statuses = Object.keys(doc.paths[path][method.toLowerCase()].responses);
      for (const status of method === 'GET' ? ['500', '503'] : ['500', '503', '507']) if (!statuses.includes(status)) missing.push(`${key}: ${status}`);
    }
    expect(missing).to.deep.equal([]);
    expect(doc.components.responses['507'].description).to.contain('storage_full');
    expect(doc.components.responses['503'].description).to.contain('component_unavailable');
  });

  it('checks bodies with the schema it states: what the schema refuses is refused with 400, and nothing is written', async () => {
    const project = world.ids['project_id']![0]!;
    const schema = doc.paths['/projects/{project_id}/labels'].post.requestBody.content['application/json'].schema;
    expect(schema.required).to.deep.equal(['name']);
    const before = (await world.app.api('GET', `/projects/${project}/labels`, { as: owner() })).json.length;
    const res = await world.app.api('POST', `/projects/${project}/labels`, { as: owner(), body: {} });
    expect(res.status).to.equal(400);
    expect(res.json.validation_errors).to.deep.equal([{ field: 'name', problem: 'this endpoint requires the parameter: name' }]);
    expect((await world.app.api('GET', `/projects/${project}/labels`, { as: owner() })).json.length).to.equal(before);
  });

  it('states every way to authenticate, and each one it states signs in to GET /me', async () => {
    const person = owner();
    const schemes = doc.components.securitySchemes as Record<string, Json>;
    expect(Object.values(schemes).map((scheme) => `${scheme.type} ${scheme.in ?? scheme.scheme} ${scheme.name ?? ''}`.trim())).to.have.members([
      'apiKey header X-TrackerToken',
      'apiKey header X-ServiceToken',
      'apiKey query token',
      'http basic',
    ]);
    const me = doc.paths['/me'].get;
    expect(me.security.map((requirement: Json) => Object.keys(requirement)[0])).to.have.members(Object.keys(schemes));
    const basicBy = (key: string) => (doc.paths[key.split(' ')[1]!][key.split(' ')[0]!.toLowerCase()].security as Json[]).some((requirement) => 'Basic' in requirement);
    expect(documentedOperations(doc).filter(basicBy)).to.deep.equal(['GET /me']);
    for (const [name, scheme] of Object.entries(schemes)) {
      const basic = `Basic ${Buffer.from(`${person.email}:${person.password}`).toString('base64')}`;
      const res =
        scheme.type === 'http'
          ? await world.app.server.request('GET', '/services/v5/me', { headers: { Authorization: basic } })
          : scheme.in === 'header'
            ? await world.app.server.request('GET', '/services/v5/me', { headers: { [scheme.name]: person.token } })
            : await world.app.server.request('GET', `/services/v5/me?${scheme.name}=${person.token}`);
      expect(res.status, `${name}: ${res.text.slice(0, 200)}`).to.equal(200);
      expect(res.json.email, name).to.equal(person.email);
      expect(checker.problems('GET', '/me', res), name).to.deep.equal([]);
    }
  });

  it('states each body with the very schema that checks it, and each query parameter a route declares', () => {
    const differing: string[] = [];
    let bodies = 0;
    for (const route of world.app.storyline.routes.filter((served: RouteDefinition) => served.unlisted !== true)) {
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      const where = `${route.method} ${route.path}`;
      const body = route.input?.body;
      if (body) {
        bodies++;
        const [mediaType, schema] = typeof body === 'function' ? ['application/json', body.schema] : [body.raw, body.schema];
        if (JSON.stringify(operation.requestBody?.content?.[mediaType]?.schema) !== JSON.stringify(schema)) differing.push(`${where}: body`);
      } else if (operation.requestBody) {
        differing.push(`${where}: a body it does not read`);
      }
      const stated = new Map((operation.parameters as Json[]).filter((parameter) => parameter.in === 'query').map((parameter) => [parameter.name as string, parameter]));
      for (const [name, schema] of Object.entries((route.input?.query?.['properties'] ?? {}) as Record<string, Json>)) {
        const { description: _description, ...rest } = schema;
        if (JSON.stringify(stated.get(name)?.schema) !== JSON.stringify(rest)) differing.push(`${where}: query ${name}`);
      }
      const pathNames = route.path.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
      const statedPath = (operation.parameters as Json[]).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      if (JSON.stringify(statedPath) !== JSON.stringify(pathNames)) differing.push(`${where}: path parameters ${statedPath}`);
    }
    expect(differing).to.deep.equal([]);
    expect(bodies).to.be.greaterThan(30);
  });

  it('says how PATCH and a POST with _method reach the PUT and DELETE operations, and they do', async () => {
    expect(doc.info.description).to.contain('PATCH does what PUT does').and.to.contain('`_method=PUT`, `PATCH` or `DELETE`');
    const project = world.ids['project_id']![0]!;
    const label = await world.app.api('POST', `/projects/${project}/labels`, { as: owner(), body: { name: 'to patch' } });
    const patched = await world.app.api('PATCH', `/projects/${project}/labels/${label.json.id}`, { as: owner(), body: { name: 'patched' } });
    expect(checker.problems('PUT', '/projects/{project_id}/labels/{label_id}', patched)).to.deep.equal([]);
    expect(patched.json.name).to.equal('patched');
    const removed = await world.app.api('POST', `/projects/${project}/labels/${label.json.id}`, { as: owner(), query: { _method: 'DELETE' } });
    expect(checker.problems('DELETE', '/projects/{project_id}/labels/{label_id}', removed)).to.deep.equal([]);
    expect(removed.status).to.equal(204);
  });

  it('states the live activity stream as text/event-stream with its own parameters and the 429 of its limits', () => {
    const stream = doc.paths['/projects/{project_id}/activity/stream'].get;
    expect(Object.keys(stream.responses['200'].content)).to.deep.equal(['text/event-stream']);
    expect(stream.parameters.filter((parameter: Json) => parameter.in === 'query').map((parameter: Json) => parameter.name)).to.include.members(['since_version', 'fields', 'date_format']);
    expect(stream.responses).to.have.property('429');
    expect(doc.components.schemas.webhook.properties.webhook_version).to.deep.equal({ enum: ['v5'] });
  });
});

describe('API: a route answering other than it declares', () => {
  it('is refused by the app with 500 unhandled_condition, so the reference never states what the route does not answer', async () => {
    const probe: RouteDefinition = {
      method: 'GET',
      path: '/declaration_probe',
      access: 'public',
      answers: { type: 'label', list: true },
      summary: 'Declares labels, answers nothing',
      handle: async () => ({ kind: 'empty' }),
    };
    const honest: RouteDefinition = { ...probe, path: '/honest_probe', answers: 'empty' };
    const app = await storylineApp({ extraRoutes: [probe, honest] });
    try {
      const res = await app.api('GET', '/declaration_probe');
      expect(res.status).to.equal(500);
      expect(res.json.code).to.equal('unhandled_condition');
      expect((await app.api('GET', '/honest_probe')).status).to.equal(204);
    } finally {
      await app.close();
    }
  });
});
