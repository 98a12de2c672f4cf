// What an operator and a browser find outside the API prefixes: `GET /health` (no credentials needed)
// with the log head and its integrity check, each projection's checkpoint, each reaction's position and
// failure, and the damaged data files met; and `GET /`: a small index pointing at the API prefix and the
// docs as JSON for a program; for a browser (Accept: text/html) the board (or a plain HTML index when no
// board was built).
//
// `status` is `degraded` while a data file is damaged (or its disk fails) or a reaction fails, with the
// `reasons`; else `catching_up` while a projection is behind the log; else `ok`. /health answers 200 in
// every case: a degraded server still serves what does not need the damaged file, and a restart does
// not mend a file, so a load balancer or liveness probe must not take it out or restart it in a loop;
// monitoring alerts on `status`.
import type { SchemaObject } from 'ajv';
import { boardPage, type BoardAssets } from './board-pages.js';
import type { ApiResult, RouteDefinition } from './route-table.js';
import { JSON_CONTENT_TYPE } from './response-headers.js';

export interface ProjectionCheckpoint {
  name: string;
  /** The projection's code version the read model was built with. */
  version: number;
  /** Global log position the read model has applied. */
  position: number;
}

/** A reaction as its runner reports it. */
export interface ReactionPosition {
  name: string;
  /** Global log position the reaction has handled. */
  position: number;
  /** Set while one of its steps fails and is retried. */
  failing: { step: string; error: string; since: number; attempts: number } | null;
}

/** A damaged data file or failing disk the server met. */
export interface StorageProblem {
  /** Its name in the data directory; null when the failure did not say which. */
  file: string | null;
  code: string;
  problem: string;
  since: number;
}

export interface OperationsDependencies {
  serverVersion: string;
  /** Position of the newest event in the log. */
  headPosition(): Promise<number>;
  /** Each projection's stored checkpoint. */
  checkpoints(): Promise<ProjectionCheckpoint[]>;
  /** The built board, or null when only the server was built. */
  board: BoardAssets | null;
  /** Each reaction's position and failure (absent: none run). */
  reactions?(): ReactionPosition[];
  /** The damaged files met and the log's integrity check (absent: nothing is watched). */
  storage?(): { faults: StorageProblem[]; integrityCheck: IntegrityCheck };
}

/** The log's integrity check at start: not run (yet), running since `started`, or what it found in `ms`. */
export interface IntegrityCheck {
  state: 'not_run' | 'running' | 'ok' | 'damaged' | 'failed';
  started?: number;
  ms?: number;
  problem?: string;
}

/** Where the index points: the API prefix (and its aliases) and the documents that describe the server. */
const API_PREFIX = '/services/v5';
const API_ALIASES = ['/v5', '/services/edge', '/edge', '/services/next', '/next'];
/** The API reference this server serves (src/api/openapi/). */
const REFERENCE = { page: '/docs', openapi: `${API_PREFIX}/openapi.json` };
const DOCS = {
  api: 'Pivotal Tracker REST API v5: any client written for it works with its base URL set to this server',
  reference: `${REFERENCE.page}: the API reference of this server (every endpoint, with "try it"); ${REFERENCE.openapi}: the same as an OpenAPI 3.1 document`,
  readme: 'README.md of the Storyline distribution: running, configuring, operating',
  conventions: 'src/api/conventions.md: the conventions every endpoint follows',
  decisions: 'docs/decisions.md: every choice made where the API reference is silent',
};

/** What GET /health answers (health() builds it), healthy or not. */
const BEHIND = { type: ['integer', 'null'], description: 'Events of the log not handled yet; null while the log head cannot be read' };
const TIME = { type: 'string', format: 'date-time' };
const HEALTH_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    status: { enum: ['ok', 'catching_up', 'degraded'], description: 'degraded: a data file is damaged or a reaction fails (reasons); catching_up: a projection is behind the log' },
    reasons: { type: 'array', items: { type: 'string' }, description: 'Why the status is degraded, one sentence each (only then)' },
    version: { type: 'string' },
    log: {
      type: 'object',
      properties: {
        head_position: { type: ['integer', 'null'] },
        integrity_check: {
          type: 'object',
          properties: {
            state: { enum: ['not_run', 'running', 'ok', 'damaged', 'failed'] },
            started: TIME,
            ms: { type: 'integer' },
            problem: { type: 'string' },
          },
          required: ['state'],
          additionalProperties: false,
        },
      },
      required: ['head_position', 'integrity_check'],
      additionalProperties: false,
    },
    projections: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, version: { type: 'integer' }, position: { type: 'integer' }, behind: BEHIND },
        required: ['name', 'version', 'position', 'behind'],
        additionalProperties: false,
      },
    },
    reactions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          position: { type: 'integer' },
          behind: BEHIND,
          failing: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                properties: { step: { enum: ['resume', 'read', 'handle', 'checkpoint'] }, error: { type: 'string' }, since: TIME, attempts: { type: 'integer', minimum: 1 } },
                required: ['step', 'error', 'since', 'attempts'],
                additionalProperties: false,
              },
            ],
          },
        },
        required: ['name', 'position', 'behind', 'failing'],
        additionalProperties: false,
      },
    },
    storage_faults: {
      type: 'array',
      items: {
        type: 'object',
        properties: { file: { type: ['string', 'null'] }, code: { type: 'string' }, problem: { type: 'string' }, since: TIME },
        required: ['file', 'code', 'problem', 'since'],
        additionalProperties: false,
      },
    },
  },
  required: ['status', 'version', 'log', 'projections', 'reactions', 'storage_faults'],
  additionalProperties: false,
};

/** What GET / answers a JSON client. */
const INDEX_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    version: { type: 'string' },
    api: { type: 'string' },
    api_aliases: { type: 'array', items: { type: 'string' } },
    health: { type: 'string' },
    reference: { type: 'object', properties: { page: { type: 'string' }, openapi: { type: 'string' } }, required: ['page', 'openapi'] },
    docs: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['name', 'version', 'api', 'api_aliases', 'health', 'reference', 'docs'],
  additionalProperties: false,
};

export function operationsRoutes(deps: OperationsDependencies): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/health',
      mount: 'root',
      access: 'public',
      answers: { raw: JSON_CONTENT_TYPE, schema: HEALTH_SCHEMA },
      summary: "The server's state: the log head and its integrity check, how far behind each read model and reaction is, the damaged files met (no credentials needed)",
      async handle() {
        return json(await health(deps));
      },
    },
    {
      method: 'GET',
      path: '/',
      mount: 'root',
      access: 'public',
      answers: { raw: [JSON_CONTENT_TYPE, 'text/html'], schema: INDEX_SCHEMA },
      summary: 'Where things are: the API prefixes and the docs (an HTML page for a browser)',
      async handle(req) {
        const index = { name: 'Storyline', version: deps.serverVersion, api: API_PREFIX, api_aliases: API_ALIASES, health: '/health', reference: REFERENCE, docs: DOCS };
        if (!prefersHtml(req.header('accept'))) return json(index);
        if (deps.board) return boardPage(deps.board);
        return { kind: 'raw', contentType: 'text/html; charset=utf-8', body: indexPage(index.version) };
      },
    },
  ];
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const isoTime = (ms: number) => new Date(ms).toISOString();

export async function health(deps: OperationsDependencies) {
  const storage = deps.storage?.() ?? { faults: [], integrityCheck: { state: 'not_run' as const } };
  const { started, ...integrityCheck } = storage.integrityCheck;
  const head = await deps.headPosition().catch(() => null); // a damaged log must not make /health fail
  const behind = (position: number) => (head === null ? null : Math.max(head - position, 0));
  const projections = (await deps.checkpoints())
    .map(({ name, version, position }) => ({ name, version, position, behind: behind(position) }))
    .sort(byName);
  const reactions = (deps.reactions?.() ?? [])
    .map(({ name, position, failing }) => ({
      name,
      position,
      behind: behind(position),
      failing: failing && { step: failing.step, error: failing.error, since: isoTime(failing.since), attempts: failing.attempts },
    }))
    .sort(byName);
  const reasons = [
    ...storage.faults.map(({ file, code, problem }) => `${file ?? 'a data file'} is damaged or its disk fails (${code}: ${problem})`),
    ...reactions.flatMap(({ name, failing }) => (failing ? [`reaction ${name} fails to ${failing.step} since ${failing.since} (${failing.attempts} attempts): ${failing.error}`] : [])),
  ];
  const caughtUp = projections.every((projection) => projection.behind === 0);
  return {
    status: reasons.length > 0 ? 'degraded' : caughtUp ? 'ok' : 'catching_up',
    ...(reasons.length > 0 ? { reasons } : {}),
    version: deps.serverVersion,
    log: { head_position: head, integrity_check: { ...integrityCheck, ...(started !== undefined ? { started: isoTime(started) } : {}) } },
    projections,
    reactions,
    storage_faults: storage.faults.map((fault) => ({ ...fault, since: isoTime(fault.since) })),
  };
}

function json(value: unknown): ApiResult {
  return { kind: 'raw', contentType: JSON_CONTENT_TYPE, body: JSON.stringify(value) };
}

/** A browser asks for text/html before (or instead of) JSON. */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const html = types.indexOf('text/html');
  const json = types.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

function indexPage(version: string): string {
  const items = Object.values(DOCS).map((text) => `<li>${escapeHtml(text)}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Storyline</title></head>
<body>
<h1>Storyline ${escapeHtml(version)}</h1>
<p>A self-hosted server speaking the Pivotal Tracker REST API v5 at <a href="${API_PREFIX}"><code>${API_PREFIX}</code></a>
(also ${API_ALIASES.map((alias) => `<code>${alias}</code>`).join(', ')}). Send your API token in <code>X-TrackerToken</code>.</p>
<p>API reference: <a href="${REFERENCE.page}"><code>${REFERENCE.page}</code></a> (as OpenAPI 3.1: <a href="${REFERENCE.openapi}"><code>${REFERENCE.openapi}</code></a>)</p>
<p>Status: <a href="/health"><code>/health</code></a></p>
<h2>Docs</h2>
<ul>${items}</ul>
</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);
}
