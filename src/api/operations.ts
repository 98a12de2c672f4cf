// What an operator and a browser find outside the API prefixes: `GET /health` (no credentials needed)
// with the log head and each projection's checkpoint, and `GET /`: the board for a browser (Accept:
// text/html), a small JSON index pointing at the API prefix and the docs otherwise (and a plain HTML
// index for a browser when no board was built).
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

export interface OperationsDependencies {
  serverVersion: string;
  /** Position of the newest event in the log. */
  headPosition(): Promise<number>;
  /** Each projection's stored checkpoint. */
  checkpoints(): Promise<ProjectionCheckpoint[]>;
  /** The built board, or null when only the server was built. */
  board: BoardAssets | null;
}

/** Where the index points: the API prefix (and its aliases) and the documents that describe the server. */
const API_PREFIX = '/services/v5';
const API_ALIASES = ['/v5', '/services/edge', '/edge', '/services/next', '/next'];
const DOCS = {
  api: 'Pivotal Tracker REST API v5: any client written for it works with its base URL set to this server',
  readme: 'README.md of the Storyline distribution: running, configuring, operating',
  conventions: 'src/api/conventions.md: the conventions every endpoint follows',
  decisions: 'docs/decisions.md: every choice made where the API reference is silent',
};

export function operationsRoutes(deps: OperationsDependencies): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/health',
      mount: 'root',
      access: 'public',
      async handle() {
        return json(await health(deps));
      },
    },
    {
      method: 'GET',
      path: '/',
      mount: 'root',
      access: 'public',
      async handle(req) {
        const index = { name: 'Storyline', version: deps.serverVersion, api: API_PREFIX, api_aliases: API_ALIASES, health: '/health', docs: DOCS };
        if (!prefersHtml(req.header('accept'))) return json(index);
        if (deps.board) return boardPage(deps.board);
        return { kind: 'raw', contentType: 'text/html; charset=utf-8', body: indexPage(index.version) };
      },
    },
  ];
}

export async function health(deps: OperationsDependencies) {
  const head = await deps.headPosition();
  const projections = (await deps.checkpoints())
    .map(({ name, version, position }) => ({ name, version, position, behind: Math.max(head - position, 0) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const caughtUp = projections.every((projection) => projection.behind === 0);
  return { status: caughtUp ? 'ok' : 'catching_up', version: deps.serverVersion, log: { head_position: head }, projections };
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
<p>Status: <a href="/health"><code>/health</code></a></p>
<h2>Docs</h2>
<ul>${items}</ul>
</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);
}
