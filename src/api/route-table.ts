// The contract every resource module (src/api/resources/*) is written against.
//
// A resource module exports a `RouteDefinition[]`. The app (api/app.ts) owns everything around a handler:
// prefixes, method simulation, body parsing, authentication, the access check declared by `access`,
// the project version header, the stale warning, `fields` / `date_format` / envelope serialization,
// pagination headers, CORS, the byte cache and error rendering. A handler only reads its request and
// returns an `ApiResult` (or throws a `DomainError`).
//
// Example (the label routes, src/api/resources/labels.ts): a read maps to a read-model look-up or a
// query (src/queries/), a write to a decider run by the one ResourceWriter, which answers with the
// resource the decision names and the project version the write produced:
//
//   { method: 'GET', path: '/projects/:project_id/labels/:label_id', access: 'project:read', cacheable: true,
//     answers: { type: 'label' }, summary: 'A label',
//     handle: async (req) => ({ kind: 'resource', type: 'label', value: await pathLabel(req) }) },
//   { method: 'POST', path: '/projects/:project_id/labels', access: 'project:write',
//     input: { body: checkLabelBody }, answers: { type: 'label', created: true }, summary: 'Create a label',
//     async handle(req) {
//       const { name } = checkLabelBody.read(req);
//       const { doc, version } = await writer.onProject(req.project!.id, decideCreateLabel, { name }, commandMeta(req));
//       return { kind: 'resource', type: 'label', value: doc, created: true, projectVersion: version };
//     } },

import type { SchemaObject } from 'ajv';
import type { Actor } from '../ports/authenticator.js';
import type { EventStreamSink } from './event-stream.js';
import type { Doc } from '../ports/read-store.js';
import type { Pagination } from '../queries/page.js';
import type { Checker } from './request-schema.js';

/**
 * Who may call a route. Checked centrally before the handler runs:
 * - `public`: anyone; credentials, when sent, must still be valid.
 * - `person`: an authenticated caller.
 * - `project:read`: the path has `:project_id`; members of any role, or anyone (even anonymous, GET only)
 *   when the project is public.
 * - `project:write`: the path has `:project_id`; role owner or member.
 * - `project:owner`: the path has `:project_id`; role owner.
 * Routes whose project is found from another id (`/stories/:story_id`) use `person` and declare
 * `project: { level, of }`: the pipeline finds the project with `of` and checks `level` in it.
 * Access is declared on routes only; a handler never grants or changes it.
 */
export type Access = 'public' | 'person' | 'project:read' | 'project:write' | 'project:owner';

export type ProjectAccessLevel = Extract<Access, `project:${string}`>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type ProjectRole = 'owner' | 'member' | 'viewer';

export type { Actor };

/** The project a request is about, after the access check passed. */
export interface ProjectAccess {
  id: number;
  project: Doc;
  /** The caller's role, null for an anonymous or non-member caller of a public project. */
  role: ProjectRole | null;
  public: boolean;
}

/** A request before its project access is resolved (what `project.of` sees). */
export type RouteRequest = Omit<ApiRequest, 'project'>;

export interface ApiRequest {
  /** Effective method (after `_method` simulation; PATCH is PUT). */
  method: HttpMethod;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** Query parameters (last value wins when repeated); never read from the body. */
  query: Record<string, string>;
  /**
   * Parsed JSON object body (`{}` when none); never holds query parameters. On a route declaring a body
   * checker, already checked and coerced by it (read it typed with `checker.read(req)`).
   */
  body: Record<string, unknown>;
  /** Only for routes declaring a raw body (`input.body.raw`): the unparsed bytes and their content type. */
  rawBody: { contentType: string; bytes: Buffer } | null;
  /** Request header by lower-case name. */
  header(name: string): string | undefined;
  /** The route the request matched. */
  readonly route: RouteDefinition;
  /** The version prefix the path was asked under (`/services/v5`, `/edge`); '' for a root-mounted route. */
  versionPrefix: string;
  actor: Actor | null;
  /** The project the route's declared access resolved (`:project_id` or `project.of`), else null. */
  readonly project: ProjectAccess | null;
  /**
   * The caller's access to another project, checked with the same rules as `access` and returned (the
   * request is not changed), for checks the data decides: the target of a story move, a `project_id`
   * query parameter. Throws the catalogue's errors (`unfound_resource`, `unauthorized_operation`,
   * `unauthenticated`).
   */
  accessTo(projectId: number, level: ProjectAccessLevel): Promise<ProjectAccess>;
  /**
   * Checks the caller's own password the way a password sign-in is checked (authentication.ts): guarded
   * by the sign-in throttle, a failure logged and counted against the caller's login and address.
   * Throws `invalid_authentication` for a wrong password, `too_many_requests` while throttled.
   */
  confirmPassword(password: string): Promise<void>;
  /** The client's address (the socket's): what limits count for anonymous callers. */
  clientAddress: string;
  /**
   * Whether the credentials the request came with still authenticate the same person now (a token
   * reset revokes them): for answers that outlive the request, the live activity stream.
   */
  credentialsStillValid(): Promise<boolean>;
  /** Fresh UUID per request (idempotency of the command this request issues). */
  commandId: string;
  /** Request time, ms since the epoch. */
  now: number;
}

export type { Pagination };

interface ResultCommon {
  /** The project the response is about; defaults to `req.project?.id`. */
  projectId?: number;
  /** The project version after a write; when absent the app looks the version up. */
  projectVersion?: number;
  /**
   * Extra response headers named without their prefix (`Last-Notification-Timestamp`); each is sent as
   * `X-Tracker-<name>` and `X-Service-<name>`.
   */
  serviceHeaders?: Record<string, string>;
  /** Extra envelope members (`last_notification_timestamp`). */
  envelopeExtras?: Record<string, unknown>;
}

export type ApiResult =
  | (ResultCommon & {
      kind: 'resource';
      /** Resource type name in the ResourceTypeRegistry the serializer applies `fields` / dates with. */
      type: string;
      value: Doc | Doc[];
      pagination?: Pagination;
      /** A create: answered with `config.createdStatus` (200 by default, 201 when configured). */
      created?: boolean;
    })
  /** 204 No Content (a delete); with `envelope=true`, 200 holding `http_status: "204"` and no data. */
  | (ResultCommon & { kind: 'empty' })
  /** Bytes sent as they are (CSV, downloads). `fields`, envelope and date_format do not apply. */
  | (ResultCommon & {
      kind: 'raw';
      contentType: string;
      body: Buffer | string;
      /** Headers of its own, over the common ones (pages: their cache and security policy). */
      headers?: Readonly<Record<string, string>>;
      /**
       * A download (file-download.ts decides how it is served); `inline` asks for in-browser display over
       * a save dialog, granted only to types that cannot run script.
       */
      filename?: string;
      inline?: boolean;
    })
  /**
   * A Server-Sent Events stream (api/event-stream.ts): answered 200 `text/event-stream` at once, then
   * `open` writes to the response for as long as the stream lasts; `cancel` when it never starts (HEAD).
   * Never cached or enveloped.
   */
  | (ResultCommon & {
      kind: 'stream';
      open(sink: EventStreamSink): void;
      cancel(): void;
    });

/**
 * Query parameters a route reads beside the app-wide ones (`fields`, `envelope`, `date_format`, `token`,
 * the page and the time-travel parameters, which the OpenAPI document adds from the route's other
 * declarations): a JSON schema of an object, each property one parameter, `required` naming the ones
 * that must be sent. A query checker's `schema` is one (queryParameters() merges several).
 */
export type QueryParameters = SchemaObject;

/** A body the app does not parse: its media type and the schema of its parts (multipart uploads). */
export interface RawBody {
  raw: string;
  schema: SchemaObject;
}

/** What a route reads beside its path parameters. */
export interface RouteInput {
  /**
   * A checker (request-schema.ts) the app runs on the parsed body before the handler, which reads the
   * coerced body with `checker.read(req)`; or a raw body, handed over unparsed as `req.rawBody`.
   */
  body?: Checker<unknown> | RawBody;
  query?: QueryParameters;
}

/**
 * What a successful call answers, for the OpenAPI document; the app checks every result against it (a
 * route answering otherwise is a programming error, answered 500 and logged):
 * - a resource of a type of the registry, one or a `list` (`paginated`: with the pagination headers),
 *   `created`: a create, answered with the configured created status;
 * - `empty`: 204 No Content;
 * - bytes of a media type (ANY_MEDIA_TYPE of route-answer.ts for a download of a stored file), with a JSON
 *   schema when they are JSON.
 */
export type RouteAnswer =
  | { type: string; list?: true; paginated?: true; created?: true }
  | 'empty'
  | { raw: string | readonly string[]; schema?: SchemaObject };

export interface RouteDefinition {
  method: HttpMethod;
  /**
   * Path relative to the version prefix, segments separated by `/`, parameters as `:name`
   * (e.g. `/projects/:project_id/stories/:story_id`, `/projects/:project_id/iterations/:n/analytics.csv`).
   * Literal segments win over parameters.
   */
  path: string;
  access: Access;
  /**
   * The project of a route whose path has no `:project_id` (`/stories/:story_id`): `of` finds its id
   * (throwing `unfound_resource` when the resource does not exist), and the caller needs `level` in it.
   */
  project?: { level: ProjectAccessLevel; of(req: RouteRequest): Promise<number> };
  handle(req: ApiRequest): Promise<ApiResult>;
  /** What the route answers (checked on every result; stated by the OpenAPI document). */
  answers: RouteAnswer;
  /** What it reads beside its path. */
  input?: RouteInput;
  /** One line for the reference (the OpenAPI operation's summary). */
  summary: string;
  /** A page for browsers rather than an API call (the reference's own page): left out of the OpenAPI document. */
  unlisted?: true;
  /** `root`: mounted outside the version prefixes (`/file_attachments/:id/download`). Default `versioned`. */
  mount?: 'versioned' | 'root';
  /** `GET /me` only: HTTP Basic credentials (username or email, and password) are accepted. */
  basicAuth?: boolean;
  /** Always answer enveloped, whatever `envelope` says. */
  alwaysEnvelope?: boolean;
  /** Datetimes always as integer ms, whatever `date_format` says. */
  alwaysMillis?: boolean;
  /**
   * GET on a project-scoped route whose response depends only on (project, project version, path,
   * query, caller's role or anonymity): the bytes are cached and ETag / If-None-Match use that key.
   * Do not set it when the answer depends on the caller's identity or on the current date; a function
   * decides per request (the stories list is cacheable unless it carries a `filter` search).
   */
  cacheable?: boolean | ((req: ApiRequest) => boolean);
  /**
   * For a cacheable route whose answer also depends on something the version does not count (the
   * current iteration number for iteration answers): that input, made part of the cache key.
   */
  cacheVariant?(req: ApiRequest): Promise<string>;
  /**
   * `false`: a project-scoped GET whose answer is not read from the read models alone (the activity
   * feeds read the log), so `as_of_version` / `as_of` are refused (400) rather than half honoured.
   * Every other project-scoped GET serves them (as-of-parameters.ts).
   */
  timeTravel?: false;
  /**
   * A successful answer to a caller with a role in the project counts as that person viewing the
   * project (membership `last_viewed_at`), cached answers and 304s too; recorded outside the log.
   */
  countsAsView?: true;
}

/** Whether the route reads its body raw (not parsed; multipart uploads). */
export function readsRawBody(route: RouteDefinition): boolean {
  const body = route.input?.body;
  return body !== undefined && typeof body !== 'function';
}

/** Query parameter schemas merged into one declaration (later ones win for a name given twice). */
export function queryParameters(...parts: readonly QueryParameters[]): QueryParameters {
  return {
    type: 'object',
    properties: Object.assign({}, ...parts.map((part) => part.properties as Record<string, SchemaObject>)) as Record<string, SchemaObject>,
    required: [...new Set(parts.flatMap((part) => (part.required as string[] | undefined) ?? []))],
  };
}
