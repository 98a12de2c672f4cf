// The board (web/, built into dist/web by `npm run build`) served by the same process as the API:
//
//   GET /  (Accept: text/html)                         the app (operations.ts keeps the JSON index for JSON clients)
//   GET /profile, /invitations/:secret, /n/projects/:id, /story/show/:id, /epic/show/:id
//                                                      the app, which opens that place
//   GET /assets/:name                                  the bundle's fingerprinted files
//
// The app's pages carry a strict Content-Security-Policy (no inline script, nothing from elsewhere, no
// framing), nosniff and no referrer (an invitation's secret is in its URL; the access log leaves it out:
// secret-paths.ts); the HTML is revalidated every time, the fingerprinted assets are cached
// for a year. An asset is sent gzipped to a client that accepts it.
import { ANY_MEDIA_TYPE } from './route-answer.js';
import { apiError } from './error-catalogue.js';
import { acceptsGzip, type HeaderBag } from './response-headers.js';
import type { ApiRequest, ApiResult, RouteDefinition } from './route-table.js';

export interface BoardAsset {
  contentType: string;
  body: Buffer;
  /** The same bytes gzipped (built with the bundle). */
  gzip: Buffer | null;
}

/** The built board, read once at start (infra/board-assets.ts). */
export interface BoardAssets {
  indexHtml: Buffer;
  asset(name: string): BoardAsset | null;
}

export const BOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

/** Headers of every board page and asset. */
const BOARD_HEADERS: Readonly<HeaderBag> = Object.freeze({
  'Content-Security-Policy': BOARD_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
});

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The places of the board a browser may open directly (BOARD-CONTRACT "Board URLs"). */
const BOARD_PATHS = ['/profile', '/invitations/:secret', '/n/projects/:project_id', '/story/show/:story_id', '/epic/show/:epic_id'];

/** The app's page: what `GET /` answers a browser and every board address answers. */
export function boardPage(assets: BoardAssets): ApiResult {
  return { kind: 'raw', contentType: 'text/html; charset=utf-8', body: assets.indexHtml, headers: { ...BOARD_HEADERS, 'Cache-Control': 'no-cache' } };
}

export function boardRoutes(assets: BoardAssets): RouteDefinition[] {
  const page: RouteDefinition[] = BOARD_PATHS.map((path) => ({
    method: 'GET',
    path,
    mount: 'root',
    access: 'public',
    answers: { raw: 'text/html' },
    summary: 'A place of the board, for a browser',
    unlisted: true,
    async handle() {
      return boardPage(assets);
    },
  }));
  return [
    ...page,
    {
      method: 'GET',
      path: '/assets/:name',
      mount: 'root',
      access: 'public',
      answers: { raw: ANY_MEDIA_TYPE },
      summary: "A file of the board's bundle",
      unlisted: true,
      async handle(req) {
        return assetResult(assets, req);
      },
    },
  ];
}

function assetResult(assets: BoardAssets, req: ApiRequest): ApiResult {
  const asset = assets.asset(req.params['name'] ?? '');
  if (!asset) throw apiError('route_not_found');
  const headers: HeaderBag = { ...BOARD_HEADERS, 'Cache-Control': IMMUTABLE, Vary: 'Accept-Encoding' };
  if (asset.gzip && acceptsGzip(req.header('accept-encoding'))) {
    return { kind: 'raw', contentType: asset.contentType, body: asset.gzip, headers: { ...headers, 'Content-Encoding': 'gzip' } };
  }
  return { kind: 'raw', contentType: asset.contentType, body: asset.body, headers };
}

