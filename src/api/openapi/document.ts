// The OpenAPI 3.1 document, generated from what the app itself runs: the route table (paths, methods,
// access, declared input and answers), the ajv schemas that check bodies and query parameters, the
// resource types the serializer renders (attribute types, associations) and the error catalogue. Nothing
// here restates the API by hand: a route, a body field or an attribute added to the code is in the next
// document.
//
// How the code's declarations become the document:
// - a path `:name` is a path parameter (an integer for `*_id` and `number`, read by idParam() and
//   iterationNumberParam(), a string otherwise);
// - query parameters: the route's `input.query`, plus the conventions the app applies (fields-selection.ts,
//   `envelope`, `date_format`), the page of paginated answers (page-params.ts) and the time-travel
//   parameters of the routes that serve them (as-of-parameters.ts);
// - the body: the checker's schema, as JSON or as a form (request-body.ts reads both);
// - the success answer from `answers` (`created` with the configured created status); errors: the
//   statuses the route's access and input can lead to, each with the catalogue's codes of that status;
// - security: the token header (either spelling) or `token` parameter; none needed on public routes and
//   on project reads (public projects); HTTP Basic where the route accepts it (GET /me).
// Root-mounted routes are listed with the site root as their server, unless they repeat a versioned route.
import type { SchemaObject } from 'ajv';
import { AS_OF_PARAMETERS, servesTimeTravel } from '../as-of-parameters.js';
import { errorCatalogue } from '../error-catalogue.js';
import { PAGE_PARAMETERS } from '../page-params.js';
import { EVENT_STREAM } from '../route-answer.js';
import type { AttributeType, ResourceType, ResourceTypeRegistry } from '../resource-type.js';
import { JSON_CONTENT_TYPE } from '../response-headers.js';
import type { RouteAnswer, RouteDefinition } from '../route-table.js';

/** A group of routes shown under one tag (a resource module, the operations routes...). */
export interface ReferenceSection {
  tag: string;
  description: string;
  routes: readonly RouteDefinition[];
}

export interface ReferenceSource {
  sections: readonly ReferenceSection[];
  types: ResourceTypeRegistry;
  /** Status of a successful create (the app's `createdStatus`). */
  createdStatus: 200 | 201;
  /** Whether the app serves `as_of_version` / `as_of`. */
  timeTravel: boolean;
  serverVersion: string;
}

/** The document's JSON (a plain object, serialized by the route). */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

const SCHEMAS = '#/components/schemas/';
const RESPONSES = '#/components/responses/';
const DATETIME = 'datetime';
const ERROR = 'error';
const ENVELOPE = 'envelope';
const HTTP_METHODS = { GET: 'get', POST: 'post', PUT: 'put', DELETE: 'delete' } as const;

const TOKEN_SCHEMES = ['TrackerToken', 'ServiceToken', 'TokenParameter'] as const;

/** The document served under `prefix` (a version prefix such as `/services/v5`). */
export function openApiDocument(source: ReferenceSource, prefix: string): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const routes = source.sections.flatMap((section) => section.routes);
  const endpoint = (route: RouteDefinition) => `${route.method} ${route.path}`;
  const versioned = new Set(routes.filter((route) => route.mount !== 'root').map(endpoint));
  const atRoot = new Set(routes.filter((route) => route.mount === 'root').map(endpoint));
  for (const section of source.sections) {
    for (const route of section.routes) {
      if (route.unlisted) continue;
      const root = route.mount === 'root';
      if (root && versioned.has(endpoint(route))) continue;
      const key = openApiPath(route.path);
      const item = (paths[key] ??= root ? { servers: [{ url: '/', description: 'The site root (outside the API prefixes)' }] } : {});
      if ('servers' in item !== root) throw new Error(`${key} is served both at the site root and under the API prefixes`);
      item[HTTP_METHODS[route.method]] = operation(route, section.tag, source, !root && atRoot.has(endpoint(route)));
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Storyline: the Tracker REST API v5',
      version: source.serverVersion,
      summary: 'A self-hosted server speaking the Pivotal Tracker REST API v5.',
      description: [
        'Every endpoint of this server, generated from the code that serves it.',
        'Authenticate with your API token in the `X-TrackerToken` header (or `X-ServiceToken`, or the `token` query parameter); `GET /me` also accepts HTTP Basic and answers your token.',
        'Conventions on every endpoint: `fields` chooses the attributes and nested resources of an answer, `envelope=true` wraps answers (and errors) in an envelope with status 200, `date_format=millis` renders datetimes as integer milliseconds, and project-scoped answers carry `X-Tracker-Project-Version`.',
        'PATCH does what PUT does on every path listed with PUT, and a POST with the query parameter `_method=PUT`, `PATCH` or `DELETE` acts as that method (for clients that can only send GET and POST).',
        'The same API is served under `/services/v5`, `/v5`, `/services/edge`, `/edge`, `/services/next` and `/next`.',
      ].join('\n\n'),
    },
    servers: [{ url: prefix }],
    tags: source.sections.filter((section) => section.routes.some((route) => !route.unlisted)).map(({ tag, description }) => ({ name: tag, description })),
    paths,
    components: components(source.types),
  };
}

/** `/projects/:project_id/stories` -> `/projects/{project_id}/stories`. */
export function openApiPath(path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '');
  return `/${segments.map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment)).join('/')}`;
}

/** `get_projects_project_id_stories`; a route only at the site root ends in `_at_root` (`get_health_at_root`). */
function operationId(route: RouteDefinition): string {
  const path = route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/_$/, '');
  return `${route.method.toLowerCase()}${path}${route.mount === 'root' ? '_at_root' : ''}`;
}

function operation(route: RouteDefinition, tag: string, source: ReferenceSource, alsoAtRoot: boolean): Record<string, unknown> {
  const body = route.input?.body;
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: route.summary,
    ...(alsoAtRoot ? { description: 'Also served at the site root, outside the API prefixes.' } : {}),
    tags: [tag],
    parameters: [...pathParameters(route), ...queryParameters(route, source.timeTravel), ...headerParameters(route)],
    security: security(route),
    responses: responses(route, source.createdStatus),
  };
  if (typeof body === 'function') {
    const required = Array.isArray(body.schema.required) && body.schema.required.length > 0;
    op['requestBody'] = {
      required,
      content: { 'application/json': { schema: body.schema }, 'application/x-www-form-urlencoded': { schema: body.schema } },
    };
  } else if (body) {
    op['requestBody'] = { required: true, content: { [body.raw]: { schema: body.schema } } };
  }
  return op;
}

function pathParameters(route: RouteDefinition): unknown[] {
  return route.path
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => {
      const name = segment.slice(1);
      const integer = name.endsWith('_id') || name === 'number';
      return { name, in: 'path', required: true, schema: integer ? { type: 'integer', minimum: 1 } : { type: 'string' } };
    });
}

/** The route's own parameters and the conventions that apply to it; a route's own declaration of a name wins. */
function queryParameters(route: RouteDefinition, timeTravel: boolean): unknown[] {
  const answer = route.answers;
  const resource = typeof answer === 'object' && 'type' in answer;
  const conventions: Record<string, SchemaObject> = {};
  if (resource) {
    conventions.fields = {
      type: 'string',
      description: 'The attributes and nested resources to answer: names separated by commas, `:default` for the default ones, `name(...)` to choose inside a nested resource.',
      examples: [':default,owners(name,email),tasks'],
    };
    if (route.alwaysMillis !== true) conventions.date_format = { enum: ['millis'], description: 'Datetimes as integer milliseconds since the epoch rather than ISO 8601.' };
  }
  if (answer === 'empty' || resource) {
    if (route.alwaysEnvelope !== true) {
      conventions.envelope = { type: 'boolean', description: 'Wrap the answer (and any error) in an envelope answered with status 200; the real status is in `http_status`.' };
    }
  }
  if (resource && answer.paginated) Object.assign(conventions, PAGE_PARAMETERS.properties);
  if (timeTravel && servesTimeTravel(route)) Object.assign(conventions, AS_OF_PARAMETERS.properties);
  const own = (route.input?.query?.['properties'] ?? {}) as Record<string, SchemaObject>;
  const required = new Set((route.input?.query?.['required'] ?? []) as string[]);
  return Object.entries({ ...conventions, ...own }).map(([name, schema]) => {
    const { description, ...rest } = schema as SchemaObject & { description?: string };
    return { name, in: 'query', ...(required.has(name) ? { required: true } : {}), ...(description ? { description } : {}), schema: rest };
  });
}

function headerParameters(route: RouteDefinition): unknown[] {
  if (!projectScoped(route)) return [];
  return [
    {
      name: 'X-Tracker-Warn-Unless-Project-Version-Is',
      in: 'header',
      description: 'The project version the caller knows: the answer says (X-Tracker-Warning-Project-Was-Stale) when the project has moved on. Also spelled X-Service-Warn-Unless-Project-Version-Is.',
      schema: { type: 'integer' },
    },
  ];
}

function projectScoped(route: RouteDefinition): boolean {
  return route.access.startsWith('project:') || route.project !== undefined;
}

function security(route: RouteDefinition): unknown[] {
  const anonymous = route.access === 'public' || (route.access === 'project:read' && route.method === 'GET');
  return [
    ...(anonymous ? [{}] : []),
    ...TOKEN_SCHEMES.map((scheme) => ({ [scheme]: [] })),
    ...(route.basicAuth ? [{ Basic: [] }] : []),
  ];
}

function responses(route: RouteDefinition, createdStatus: 200 | 201): Record<string, unknown> {
  const success = successResponse(route, createdStatus);
  const out: Record<string, unknown> = { [success.status]: success.response };
  for (const status of errorStatuses(route)) out[String(status)] = { $ref: `${RESPONSES}${status}` };
  return out;
}

function successResponse(route: RouteDefinition, createdStatus: 200 | 201): { status: string; response: Record<string, unknown> } {
  const answer: RouteAnswer = route.answers;
  const headers: Record<string, unknown> = {};
  if (projectScoped(route) || (typeof answer === 'object' && 'type' in answer && answer.type === 'project' && !answer.list)) {
    headers['X-Tracker-Project-Version'] = { description: "The project's version after the request (also X-Service-Project-Version).", schema: { type: 'integer' } };
  }
  if (answer === 'empty') return { status: '204', response: { description: 'Done; nothing to answer (with envelope=true: 200 and an envelope without data).', headers } };
  if ('raw' in answer) {
    const types = typeof answer.raw === 'string' ? [answer.raw] : answer.raw;
    const content = Object.fromEntries(types.map((type) => [type.split(';')[0]!.trim(), type.startsWith('application/json') && answer.schema ? { schema: answer.schema } : {}]));
    return { status: '200', response: { description: 'The bytes asked for.', headers, content } };
  }
  if (answer.paginated) {
    for (const name of ['Total', 'Limit', 'Offset', 'Returned']) {
      headers[`X-Tracker-Pagination-${name}`] = { description: `Pagination: ${name.toLowerCase()} (also X-Service-Pagination-${name}).`, schema: { type: 'integer' } };
    }
  }
  const one = { $ref: `${SCHEMAS}${answer.type}` };
  const value = answer.list ? { type: 'array', items: one } : one;
  // An always-enveloped route envelopes its errors too: `data` is the answer, or the error hash.
  const schema = route.alwaysEnvelope
    ? {
        allOf: [{ $ref: `${SCHEMAS}${ENVELOPE}` }, { type: 'object', properties: { data: { anyOf: [value, { $ref: `${SCHEMAS}${ERROR}` }] } } }],
        description: 'Always enveloped, errors too (http_status gives the real status).',
      }
    : value;
  const status = answer.created ? String(createdStatus) : '200';
  return {
    status,
    response: { description: answer.created ? `The ${answer.type} created.` : `The ${answer.type}${answer.list ? ' list' : ''}.`, headers, content: { 'application/json': { schema } } },
  };
}

/**
 * The error statuses a caller can meet on the route, from its access, path and input. Every route can
 * meet 500 (a fault of the server) and 503 (a damaged data file, a busy worker: storage-failure.ts);
 * a write also 409 (conflicts, `deadlock`) and 507 (a full disk).
 */
function errorStatuses(route: RouteDefinition): number[] {
  const statuses = new Set<number>([400, 403, 500, 503]);
  if (route.access !== 'public' || route.project) statuses.add(401);
  if (route.path.includes(':') || projectScoped(route)) statuses.add(404);
  if (route.method !== 'GET') {
    statuses.add(409);
    statuses.add(507);
  }
  if (route.input?.body) {
    statuses.add(413);
    statuses.add(415);
  }
  // Password sign-ins are throttled; open event streams are limited per person and in total.
  if (route.basicAuth || answersEventStream(route)) statuses.add(429);
  return [...statuses].sort((a, b) => a - b);
}

function answersEventStream(route: RouteDefinition): boolean {
  const answer = route.answers;
  return typeof answer === 'object' && 'raw' in answer && answer.raw === EVENT_STREAM;
}

function components(types: ResourceTypeRegistry): Record<string, unknown> {
  const schemas: Record<string, unknown> = {
    [DATETIME]: {
      description: 'ISO 8601 with second precision in UTC (2017-05-03T23:29:39Z), or integer milliseconds since the epoch with date_format=millis.',
      oneOf: [{ type: 'string', format: 'date-time' }, { type: 'integer' }],
    },
    [ERROR]: errorSchema(),
    [ENVELOPE]: {
      type: 'object',
      description: 'An answer with envelope=true: always status 200, the real status in http_status.',
      properties: {
        http_status: { type: 'string', examples: ['200', '404'] },
        project_version: { type: 'integer' },
        warning_project_was_stale: { type: 'boolean' },
        pagination: {
          type: 'object',
          properties: { total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' }, returned: { type: 'integer' } },
        },
        data: { description: 'The answer (absent for 204), or the error hash.' },
      },
      required: ['http_status'],
    },
  };
  for (const type of types.all) schemas[type.name] = resourceSchema(type);
  return {
    schemas,
    responses: errorResponses(),
    securitySchemes: {
      TrackerToken: { type: 'apiKey', in: 'header', name: 'X-TrackerToken', description: 'Your API token (GET /me answers it).' },
      ServiceToken: { type: 'apiKey', in: 'header', name: 'X-ServiceToken', description: 'The same token, in the other spelling of the header.' },
      TokenParameter: { type: 'apiKey', in: 'query', name: 'token', description: 'The same token, as a query parameter.' },
      Basic: { type: 'http', scheme: 'basic', description: 'Username or email and password: GET /me only.' },
    },
  };
}

/** A resource type's schema: what the serializer can render (every attribute optional, `fields` chooses). */
export function resourceSchema(type: ResourceType): SchemaObject {
  const properties: Record<string, unknown> = {};
  if (type.kind !== undefined) properties.kind = { const: type.kind };
  for (const [name, attribute] of Object.entries(type.attributes)) properties[name] = attributeSchema(attribute);
  for (const [name, association] of Object.entries(type.associations ?? {})) {
    const one = { $ref: `${SCHEMAS}${association.type}` };
    properties[name] = association.many ? { type: 'array', items: one } : one;
  }
  return { type: 'object', properties, additionalProperties: false };
}

function attributeSchema(attribute: AttributeType): SchemaObject {
  if (typeof attribute !== 'string') return attribute;
  if (attribute === DATETIME) return { $ref: `${SCHEMAS}${DATETIME}` };
  if (attribute.endsWith('[]')) return { type: 'array', items: { type: attribute.slice(0, -2) } };
  return { type: attribute };
}

function errorSchema(): SchemaObject {
  return {
    type: 'object',
    description: 'The error hash every failure answers.',
    properties: {
      kind: { const: 'error' },
      code: { enum: Object.keys(errorCatalogue), description: 'Clients should accept codes they do not know.' },
      error: { type: 'string' },
      general_problem: { type: 'string' },
      requirement: { type: 'string' },
      possible_fix: { type: 'string' },
      validation_errors: {
        type: 'array',
        items: { type: 'object', properties: { field: { type: 'string' }, problem: { type: 'string' } }, required: ['field', 'problem'], additionalProperties: false },
      },
    },
    required: ['kind', 'code', 'error'],
    additionalProperties: false,
  };
}

/** One response per error status, listing the catalogue's codes of that status. */
function errorResponses(): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const [code, entry] of Object.entries(errorCatalogue)) byStatus.set(entry.status, [...(byStatus.get(entry.status) ?? []), code]);
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: `An error hash; code ${codes.join(', ')}.`,
      content: { [JSON_CONTENT_TYPE.split(';')[0]!]: { schema: { $ref: `${SCHEMAS}${ERROR}` } } },
    };
  }
  return out;
}
