// The express app: one request pipeline applies the conventions of the spec ("Conventions for all
// endpoints", "Authentication", "Errors", "Versioning") to every route of the route table:
//
//   parse URL and query -> OPTIONS preflight -> method simulation -> route match (404; 405 for a method
//   no route serves)
//   -> authenticate (403 before anything else looks at ids) -> parse `fields` and check integer query
//   parameters (400 before any work)
//   -> read and parse the body -> access check declared by the route -> [byte cache]
//   -> [a GET computed: its turn, one a turn of the event loop (read-turns.ts)] -> handler
//   -> serialize (fields, date_format, envelope) -> headers (version, stale warning, pagination) -> send
//   -> [a view of the project, for routes that count as one: membership `last_viewed_at`].
// What the method and URL alone decide (query, route, `fields`, the cache key's request part, the logged
// path) is remembered per distinct URL once every check of it passed (request-shape.ts): a repeated GET
// skips that parsing; authentication and the access check run on every request.
//
// Every response, errors included, is JSON (except `raw` results) and carries the CORS headers; a `raw`
// result with a file name is a download, presented by file-download.ts. Any thrown DomainError becomes
// its error hash (a storage failure too: `storageFailure` maps it); anything else is logged and answered
// 500 `unhandled_condition`, never HTML and never a stack trace.
//
// Choices recorded here:
// - `envelope=true` answers HTTP 200 and puts the real status in `http_status` (errors too); a delete
//   answers `{"http_status":"204"}` without `data`. The envelope's values are also sent as headers.
// - The project version header goes on successful responses about one project, never on errors (the
//   recorded 400 had none, facts §1).
// - OPTIONS on any path answers 204 with the CORS headers.
// - `_method` with another value than PUT, PATCH or DELETE on a POST answers 400 `invalid_parameter`.
// - Bad percent-encoding in the path answers 404 `route_not_found` (no route has such a segment).
// - Every answered request logs one `request` line (accessLogLine): method, path with its query but
//   without `token` and without an invitation's secret (secret-paths.ts), status, duration and the
//   project version answered; never a header or a body.

import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import express, { type Express } from 'express';
import { invalidField } from '../domain/errors.js';
import { DEFAULT_RESPONSE_CACHE_BYTES, type AppDependencies } from './app-dependencies.js';
import { clientAddress, trustedProxies, type TrustedProxies } from './client-address.js';
import { authenticate, confirmOwnPassword, isXhr, missingCredentials, tokenFix, type SignInGuard } from './authentication.js';
import { apiError, classifyThrown, toErrorBody } from './error-catalogue.js';
import { namesAnyOf, parseFields, type FieldSelection } from './fields-selection.js';
import { downloadHeaders } from './file-download.js';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottle } from './login-throttle.js';
import { asOfRequest, checkedAsOfVersion, versionFoundAt, type AsOfRequest } from './as-of-parameters.js';
import { authorizeProject } from './project-authorization.js';
import { assertIntegerQueryParameters } from './query-parameters.js';
import { EVENT_STREAM_HEADERS, responseSink } from './event-stream.js';
import { discardUnreadBody, parseBody, readBodyBytes, RequestAbandoned } from './request-body.js';
import { cacheKey, entityTag, matchesIfNoneMatch, requestKeyPart, ResponseCache, type CachedResponse } from './response-cache.js';
import { loggedPath, RequestShapes, type RequestShape } from './request-shape.js';
import { commonEnvelopeMembers, commonHeaders, JSON_CONTENT_TYPE, setServiceHeader, type HeaderBag } from './response-headers.js';
import { readsRawBody, type ApiRequest, type ApiResult, type HttpMethod, type ProjectAccess, type ProjectAccessLevel, type RouteDefinition, type RouteRequest } from './route-table.js';
import { assertAnswersAsDeclared } from './route-answer.js';
import { ReadTurns } from './read-turns.js';
import { RenderScope } from './render-scope.js';
import { RouteMatcher } from './route-matcher.js';
import { pathWithoutSecrets } from './secret-paths.js';
import { Serializer } from './serializer.js';

/** The API as an express app (what the composition root mounts by default). */
export function createApp(deps: AppDependencies): Express {
  const listener = createRequestListener(deps);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.use(listener);
  return app;
}

/**
 * The same pipeline as a bare node request listener: it uses nothing of express, so a server that mounts
 * nothing else may use it directly and skip express's router, the larger cost of a trivial request.
 */
export function createRequestListener(deps: AppDependencies): (req: IncomingMessage, res: ServerResponse) => void {
  const pipeline = new RequestPipeline(deps);
  return (req, res) => {
    void pipeline.handle(req, res);
  };
}

/** Per-request facts the error path needs too. */
interface RequestState {
  envelope: boolean;
  bodyRead: boolean;
  method: string;
  path: string;
  /** The raw query string ('' when none). */
  query: string;
  /** The access log's path, when the request's shape already worked it out. */
  loggedPath: string | null;
  /** The project version the response carries, for the access log. */
  projectVersion: string | null;
}

/** An answer as a route rendered it: its own headers only. */
interface Rendered {
  status: number;
  headers: HeaderBag;
  body: Buffer | null;
}

/** An answer as it goes on the wire: every header, the common ones and Content-Length included. */
interface WireResponse {
  status: number;
  headers: Readonly<HeaderBag>;
  body: Buffer | null;
}

class RequestPipeline {
  private readonly matcher: RouteMatcher;
  private readonly serializer: Serializer;
  private readonly cache: ResponseCache;
  private readonly shapes = new RequestShapes();
  /** GETs that compute their answer go one a turn of the event loop (read-turns.ts). */
  private readonly readTurns = new ReadTurns();
  private readonly common: Readonly<HeaderBag>;
  private readonly envelopeMembers: Readonly<Record<string, unknown>>;
  private readonly clock: () => number;
  private readonly signIns: SignInGuard;
  private readonly proxies: TrustedProxies | null;

  constructor(private readonly deps: AppDependencies) {
    for (const route of deps.routes) assertRouteIsWellFormed(route);
    this.matcher = new RouteMatcher(deps.routes);
    this.serializer = new Serializer(deps.resources);
    this.cache = new ResponseCache({
      entries: deps.config.responseCacheEntries,
      bytes: deps.config.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES,
    });
    this.common = commonHeaders(deps.config);
    this.envelopeMembers = commonEnvelopeMembers(deps.config);
    this.clock = deps.clock ?? Date.now;
    this.proxies = deps.config.trustedProxies?.length ? trustedProxies(deps.config.trustedProxies) : null;
    this.signIns = {
      throttle: new LoginThrottle(this.clock, deps.loginThrottle ?? DEFAULT_LOGIN_THROTTLE),
      log: deps.log,
      tokenFix: tokenFix(deps.config.siteUrl),
    };
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const state: RequestState = { envelope: false, bodyRead: false, method: req.method ?? '', path: '', query: '', loggedPath: null, projectVersion: null };
    try {
      await this.process(req, res, state);
    } catch (thrown) {
      this.sendError(req, res, thrown, state);
    }
    this.deps.log.info('request', accessLogLine(state, res.statusCode, performance.now() - started));
  }

  private async process(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    const url = req.url ?? '/';
    if (req.method === 'OPTIONS') return this.preflight(url, res, state);
    const known = this.shapes.get(state.method, url);
    const shape = known ?? this.matchedRoute(url, state);
    state.path = shape.path;
    state.query = shape.queryString;
    state.loggedPath = known ? known.loggedPath : null;
    const { query, method, route, params, prefix } = shape;
    // A route whose answers are always enveloped envelopes its errors too: its clients read one shape.
    state.envelope = query.envelope === 'true' || route.alwaysEnvelope === true;

    const header = headerReader(req.headers);
    const address = clientAddress(req.socket.remoteAddress, header('x-forwarded-for'), this.proxies);
    const actor = await authenticate({ header, query, basicAllowed: route.basicAuth === true, address }, this.deps.auth, this.signIns);
    let selection: FieldSelection;
    let asOf: AsOfRequest = null;
    let cacheKeyPart: string | null = null;
    if (known) ({ selection, cacheKeyPart } = known);
    else {
      selection = parseFields(query.fields);
      assertIntegerQueryParameters(query);
      asOf = asOfRequest(query, method, route, this.deps.timeTravel !== undefined);
      // A request at the present, every check of its URL passed: the next one like it skips them.
      if (asOf === null) {
        cacheKeyPart = requestKeyPart({ method: route.method, routePath: route.path, params, query });
        this.shapes.remember(state.method, url, { ...shape, selection, cacheKeyPart, loggedPath: loggedPath(shape.path, shape.queryString) });
      }
    }
    const limit = readsRawBody(route) ? (this.deps.config.maxRawBodyBytes ?? this.deps.config.maxBodyBytes) : this.deps.config.maxBodyBytes;
    const bytes = await readBodyBytes(req, limit);
    state.bodyRead = true;
    const { body, rawBody } = parseBody(bytes, req.headers['content-type'], method, route);
    const xhr = isXhr({ header });

    const routeRequest: RouteRequest = {
      method, params, query, body, rawBody, header, actor, route, versionPrefix: prefix,
      clientAddress: address,
      credentialsStillValid: async () => {
        if (!actor) return true;
        const again = await authenticate({ header, query, basicAllowed: false, address }, this.deps.auth, this.signIns).catch(() => null);
        return again?.id === actor.id;
      },
      commandId: randomUUID(),
      now: this.clock(),
      accessTo: (projectId, level) => authorizeProject(this.deps.projects, { projectId, actor, level, method, xhr }),
      confirmPassword: (password) => {
        if (!actor) throw missingCredentials(xhr);
        return confirmOwnPassword({ actor, address }, password, this.deps.auth, this.signIns);
      },
    };
    const apiRequest: ApiRequest = { ...routeRequest, project: await this.declaredAccess(route, routeRequest) };
    // The one check of a declared body, after the access check and before the handler reads it.
    const checkBody = route.input?.body;
    if (typeof checkBody === 'function') apiRequest.body = checkBody(body) as Record<string, unknown>;

    const context: RenderContext = { route, request: apiRequest, selection, state, asOfVersion: null, cacheKeyPart };
    if (asOf) return this.answerAsOf(res, context, asOf);
    return this.answer(res, context);
  }

  /** OPTIONS on any path: 204 with the CORS headers. */
  private preflight(url: string, res: ServerResponse, state: RequestState): void {
    const mark = url.indexOf('?');
    state.path = mark === -1 ? url : url.slice(0, mark);
    state.query = mark === -1 ? '' : url.slice(mark + 1);
    state.envelope = parseQuery(state.query).envelope === 'true';
    this.write(res, state, this.wire({ status: 204, headers: {}, body: null }));
  }

  /**
   * The URL parsed and its route found: 404 `route_not_found` for a path no route serves, 405 for a
   * method none does (OPTIONS never gets here). The shape's remaining parts are worked out by process().
   */
  private matchedRoute(url: string, state: RequestState): Omit<RequestShape, 'selection' | 'cacheKeyPart' | 'loggedPath'> {
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    const queryString = mark === -1 ? '' : url.slice(mark + 1);
    state.path = path;
    state.query = queryString;
    const query = parseQuery(queryString);
    state.envelope = query.envelope === 'true';
    const method = effectiveMethod(state.method, query);
    const match = this.matcher.match(method, path);
    if (match.kind === 'not_found') throw apiError('route_not_found');
    if (match.kind === 'method_not_supported' || method === null) throw apiError('http_method_not_supported');
    return { path, queryString, query, method, route: match.route, params: match.params, prefix: match.prefix };
  }

  private async answer(res: ServerResponse, context: RenderContext): Promise<void> {
    const { route, request, state } = context;
    const ifNoneMatch = request.method === 'GET' ? request.header('if-none-match') : undefined;
    const cacheable = (typeof route.cacheable === 'function' ? route.cacheable(request) : route.cacheable === true) && !this.movesWithClock(context.selection);
    if (cacheable && request.method === 'GET' && request.project) {
      const cached = await this.cachedResponse(context);
      this.write(res, state, cached, ifNoneMatch);
      return this.noteView(context, cached.status);
    }
    if (request.method === 'GET') await this.readTurns.take();
    const result = await route.handle(request);
    if (result.kind === 'stream') {
      try {
        assertAnswersAsDeclared(route, result);
      } catch (error) {
        result.cancel(); // the slot the route took is given back
        throw error;
      }
      return this.startStream(res, context, result);
    }
    const rendered = await this.render(result, context, context.asOfVersion);
    if (rendered.status === 200 && rendered.body && request.method === 'GET') rendered.headers.ETag ??= entityTag(rendered.body);
    this.write(res, state, this.wire(rendered), ifNoneMatch);
    this.noteView(context, rendered.status);
  }

  /** Whether the answer names values that move with the clock (never byte-cached: resource-type.ts). */
  private movesWithClock(selection: FieldSelection): boolean {
    return namesAnyOf(selection, this.deps.resources.namesMovingWithClock);
  }

  /**
   * An event stream: 200 with the stream headers sent at once (no Content-Length, no cache, no ETag), then
   * the route's stream writes to the response; a HEAD request gets the headers only.
   */
  private async startStream(res: ServerResponse, context: RenderContext, result: Extract<ApiResult, { kind: 'stream' }>): Promise<void> {
    const headers: HeaderBag = { ...this.common, ...EVENT_STREAM_HEADERS };
    const projectId = result.projectId ?? context.request.project?.id;
    const version = await Promise.resolve(result.projectVersion ?? (projectId === undefined ? null : this.deps.projectVersion(projectId))).catch((error: unknown) => {
      result.cancel(); // the slot the route took is given back
      throw error;
    });
    if (version !== null) setServiceHeader(headers, 'Project-Version', version);
    context.state.projectVersion = headers['X-Tracker-Project-Version'] ?? null;
    if (res.destroyed) return result.cancel();
    // No chunked framing: the body ends when the connection does (an event stream is never reused for
    // another request), so each write of the stream is one write to the socket.
    res.removeHeader('Transfer-Encoding');
    res.writeHead(200, headers);
    if (context.state.method === 'HEAD') {
      result.cancel();
      res.end();
      return;
    }
    res.flushHeaders();
    if (!res.socket) return result.cancel();
    result.open(responseSink(res));
  }

  /** A route that `countsAsView`, answered to a person with a role in the project: they viewed it. */
  private noteView({ route, request }: RenderContext, status: number): void {
    if (route.countsAsView !== true || status !== 200 || !request.actor || !request.project?.role) return;
    this.deps.projectViews?.viewed({ personId: request.actor.id, projectId: request.project.id }, request.now);
  }

  /**
   * A GET with `as_of_version` / `as_of`: access is checked against the project as it is now; the
   * route's own handler and the serializer then read the project's read models as they stood at that
   * version (queries/time-travel.ts), and the answer carries that version.
   */
  private async answerAsOf(res: ServerResponse, context: RenderContext, asOf: NonNullable<AsOfRequest>): Promise<void> {
    const { scope, history } = this.deps.timeTravel!;
    const access = context.request.project!;
    const current = typeof access.project.version === 'number' ? access.project.version : ((await this.deps.projectVersion(access.id)) ?? 0);
    const version = 'version' in asOf ? checkedAsOfVersion(asOf.version, current) : versionFoundAt(await history.versionAt(access.id, asOf.instant));
    const reader = await history.readerAt(access.id, version);
    try {
      const project = await reader('projects').findOne({ id: access.id });
      if (!project) throw apiError('unfound_resource');
      const request: ApiRequest = { ...context.request, project: { ...access, project } };
      await scope.run(reader, () => this.answer(res, { ...context, request, asOfVersion: version }));
    } finally {
      reader.release();
    }
  }

  /** The access the route declares, checked: the caller, and the project when the route names one. */
  private async declaredAccess(route: RouteDefinition, req: RouteRequest): Promise<ProjectAccess | null> {
    if (route.access === 'person' && !req.actor) throw missingCredentials(req.header('x-requested-with')?.toLowerCase() === 'xmlhttprequest');
    if (route.access.startsWith('project:')) {
      const id = /^[0-9]{1,16}$/.test(req.params['project_id'] ?? '') ? Number(req.params['project_id']) : Number.NaN;
      return req.accessTo(id, route.access as ProjectAccessLevel);
    }
    if (route.project) return req.accessTo(await route.project.of(req), route.project.level);
    return null;
  }

  /**
   * A cacheable GET: served from bytes when (project, version, request, audience) was answered before,
   * headers and all, so a hit builds nothing.
   */
  private async cachedResponse(context: RenderContext): Promise<WireResponse> {
    const { route, request } = context;
    const project = request.project!;
    // The access check has just read the project document: its `version` is the current one.
    const version = typeof project.project.version === 'number' ? project.project.version : await this.deps.projectVersion(project.id);
    if (version === null) return this.wire(await this.render(await route.handle(request), context, null));
    const key = cacheKey({
      projectId: project.id,
      version,
      audience: project.role ?? (request.actor ? 'non-member' : 'anonymous'),
      request: context.cacheKeyPart ?? requestKeyPart({ method: route.method, routePath: route.path, params: request.params, query: request.query }),
      staleWarning: staleWarning(request.header, version),
      variant: `${route.cacheVariant ? await route.cacheVariant(request) : ''}#${this.deps.unversionedStamp?.() ?? 0}`,
    });
    const cached = this.cache.get(key);
    if (cached) return cached;
    await this.readTurns.take();
    const rendered = await this.render(await route.handle(request), context, version);
    if (rendered.status !== 200 || !rendered.body) return this.wire(rendered);
    rendered.headers.ETag = entityTag(key);
    const stored: CachedResponse = { ...this.wire(rendered), body: rendered.body };
    // A change that landed while rendering may be in the bytes: they belong to no single version.
    // (An answer as of a past version is read from that version's fold: no change lands in it.)
    if (context.asOfVersion !== null || (await this.deps.projectVersion(project.id)) === version) this.cache.set(key, stored);
    return stored;
  }

  private async render(result: ApiResult, context: RenderContext, knownVersion: number | null): Promise<Rendered> {
    const { request, route, state } = context;
    assertAnswersAsDeclared(route, result);
    const headers: HeaderBag = {};
    const envelope: Record<string, unknown> = { http_status: '200' };
    const projectId = result.projectId ?? request.project?.id;
    if (projectId !== undefined) {
      const version = result.projectVersion ?? knownVersion ?? (await this.deps.projectVersion(projectId));
      if (version !== null) {
        setServiceHeader(headers, 'Project-Version', version);
        envelope.project_version = version;
        const stale = staleWarning(request.header, projectId === request.project?.id ? versionKnownToCaller(request, version) : version);
        if (stale !== null) {
          setServiceHeader(headers, 'Warning-Project-Was-Stale', stale);
          envelope.warning_project_was_stale = stale;
        }
      }
    }
    for (const [suffix, value] of Object.entries(result.serviceHeaders ?? {})) setServiceHeader(headers, suffix, value);
    const enveloped = state.envelope || route.alwaysEnvelope === true;

    switch (result.kind) {
      case 'stream':
        throw new Error(`route ${route.method} ${route.path}: a stream is started by answer(), never rendered`);
      case 'raw': {
        if (result.filename === undefined) headers['Content-Type'] = result.contentType;
        else Object.assign(headers, downloadHeaders({ contentType: result.contentType, filename: result.filename, inlineAsked: result.inline === true }));
        if (result.headers) Object.assign(headers, result.headers);
        return { status: 200, headers, body: typeof result.body === 'string' ? Buffer.from(result.body) : result.body };
      }
      case 'empty':
        if (!enveloped) return { status: 204, headers, body: null };
        envelope.http_status = '204';
        return this.json(200, headers, { ...envelope, ...this.envelopeMembers, ...result.envelopeExtras });
      case 'resource': {
        const status = result.created ? this.deps.config.createdStatus : 200;
        const data = await this.serializer.render(result.type, result.value, context.selection, {
          ctx: {
            actor: request.actor,
            project: request.project,
            now: request.now,
            query: request.query,
            millis: route.alwaysMillis === true || request.query.date_format === 'millis',
            scope: new RenderScope(),
          },
        });
        if (result.pagination) {
          const { total, limit, offset, returned } = result.pagination;
          setServiceHeader(headers, 'Pagination-Total', total);
          setServiceHeader(headers, 'Pagination-Limit', limit);
          setServiceHeader(headers, 'Pagination-Offset', offset);
          setServiceHeader(headers, 'Pagination-Returned', returned);
          envelope.pagination = { total, limit, offset, returned };
        }
        if (!enveloped) return this.json(status, headers, data);
        envelope.http_status = String(status);
        return this.json(200, headers, { ...envelope, data, ...this.envelopeMembers, ...result.envelopeExtras });
      }
    }
  }

  private json(status: number, headers: HeaderBag, value: unknown): Rendered {
    headers['Content-Type'] = JSON_CONTENT_TYPE;
    return { status, headers, body: Buffer.from(JSON.stringify(value)) };
  }

  private wire(rendered: Rendered): WireResponse {
    const headers: HeaderBag = { ...this.common, ...rendered.headers };
    if (rendered.body) headers['Content-Length'] = String(rendered.body.length);
    return { status: rendered.status, headers, body: rendered.body };
  }

  private write(res: ServerResponse, state: RequestState, response: WireResponse, ifNoneMatch?: string): void {
    state.projectVersion = response.headers['X-Tracker-Project-Version'] ?? null;
    const etag = response.headers.ETag;
    if (etag && response.status === 200 && matchesIfNoneMatch(ifNoneMatch, etag)) {
      const notModified: HeaderBag = { ...this.common, ETag: etag };
      for (const [name, value] of Object.entries(response.headers)) if (name.startsWith('X-')) notModified[name] = value;
      res.writeHead(304, notModified);
      res.end();
      return;
    }
    res.writeHead(response.status, response.headers);
    res.end(response.body ?? undefined);
  }

  private sendError(req: IncomingMessage, res: ServerResponse, thrown: unknown, state: RequestState): void {
    if (thrown instanceof RequestAbandoned) {
      res.destroy();
      return;
    }
    const { error, unexpected } = classifyThrown(this.deps.storageFailure ? this.deps.storageFailure(thrown) : thrown);
    if (unexpected) {
      this.deps.log.error('unhandled error while answering a request', {
        method: state.method,
        path: pathWithoutSecrets(state.path),
        error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
      });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const { status, body } = toErrorBody(error);
    const rendered = state.envelope
      ? this.json(200, {}, { http_status: String(status), data: body, ...this.envelopeMembers })
      : this.json(status, {}, body);
    if (error.retryAfterSeconds !== undefined) rendered.headers['Retry-After'] = String(error.retryAfterSeconds);
    // An unread body (refused before reading, or announced too large) is discarded as it arrives, so a
    // client still uploading reads the answer instead of a reset; beyond the discard bound, close.
    if (!state.bodyRead && hasBody(req) && !discardUnreadBody(req)) rendered.headers.Connection = 'close';
    this.write(res, state, this.wire(rendered));
  }
}

interface RenderContext {
  route: RouteDefinition;
  request: ApiRequest;
  selection: FieldSelection;
  state: RequestState;
  /** The past version a time-travelling GET answers at (null: the present). */
  asOfVersion: number | null;
  /** The request's part of its cache key, when its shape already worked it out. */
  cacheKeyPart: string | null;
}

function assertRouteIsWellFormed(route: RouteDefinition): void {
  if (route.access.startsWith('project:') && !route.path.split('/').includes(':project_id')) {
    throw new Error(`route ${route.method} ${route.path} declares ${route.access} but has no :project_id`);
  }
  if (route.project && route.access !== 'person' && route.access !== 'public') {
    throw new Error(`route ${route.method} ${route.path}: a project found by \`project.of\` needs access 'person' or 'public'`);
  }
  if (route.cacheable && route.method !== 'GET') throw new Error(`route ${route.method} ${route.path}: only GET is cacheable`);
}

/** The access-log fields of an answered request; the query keeps every parameter but `token`. */
export function accessLogLine(
  state: Pick<RequestState, 'method' | 'path' | 'query' | 'loggedPath' | 'projectVersion'>,
  status: number,
  durationMs: number,
): Record<string, unknown> {
  return {
    method: state.method,
    path: state.loggedPath ?? loggedPath(state.path, state.query),
    status,
    duration_ms: Math.round(durationMs * 100) / 100,
    project_version: state.projectVersion === null ? null : Number(state.projectVersion),
  };
}

/** The method a request acts as: PATCH is PUT, HEAD is GET, a POST may simulate PUT / PATCH / DELETE. */
export function effectiveMethod(method: string, query: Readonly<Record<string, string>>): HttpMethod | null {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return 'GET';
    case 'PUT':
    case 'PATCH':
      return 'PUT';
    case 'DELETE':
      return 'DELETE';
    case 'POST': {
      const simulated = query._method;
      if (simulated === undefined) return 'POST';
      switch (simulated.toUpperCase()) {
        case 'PUT':
        case 'PATCH':
          return 'PUT';
        case 'DELETE':
          return 'DELETE';
        default:
          throw invalidField('_method', '_method can only be PUT, PATCH or DELETE.');
      }
    }
    default:
      return null;
  }
}

/**
 * Query parameters from the raw query string; the last value of a repeated name wins. The map has no
 * prototype, so a name a request does not send (`toString`, `constructor`) reads as undefined.
 */
export function parseQuery(raw: string): Record<string, string> {
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  if (raw === '') return query;
  for (const [name, value] of new URLSearchParams(raw)) query[name] = value;
  return query;
}

function headerReader(headers: IncomingHttpHeaders): (name: string) => string | undefined {
  return (name) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
}

/**
 * The version a caller up to date would name: for a write, the project's version BEFORE it (read by the
 * access check, before the handler ran), since the caller cannot know the version its own write makes.
 */
function versionKnownToCaller(request: ApiRequest, versionNow: number): number {
  if (request.method === 'GET') return versionNow;
  const before = request.project?.project.version;
  return typeof before === 'number' ? before : versionNow;
}

/** `X-Tracker-Warn-Unless-Project-Version-Is` (either spelling): true when it differs from `version`. */
function staleWarning(header: (name: string) => string | undefined, version: number): boolean | null {
  const given = header('x-tracker-warn-unless-project-version-is') ?? header('x-service-warn-unless-project-version-is');
  if (given === undefined) return null;
  return given.trim() !== String(version);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Requests node's HTTP parser rejects (malformed request line, headers too large) never reach express;
 * answer them with a JSON error hash too. Call once on the server the app is mounted on.
 */
export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const code = tooLarge ? 'request_entity_too_large' : 'invalid_parameter';
    const details = tooLarge
      ? { requirement: 'Request headers must be smaller.' }
      : { general_problem: 'The HTTP request could not be parsed.' };
    const { status, body } = toErrorBody(apiError(code, details));
    const text = JSON.stringify(body);
    const headers = { ...commonHeaders({}) };
    const lines = [
      `HTTP/1.1 ${status} ${tooLarge ? 'Payload Too Large' : 'Bad Request'}`,
      `Content-Type: ${JSON_CONTENT_TYPE}`,
      `Content-Length: ${Buffer.byteLength(text)}`,
      'Connection: close',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
  });
}
