// The reference page at /docs: Swagger UI (the swagger-ui-dist package, a dependency of the server: no
// CDN) rendering the server's own OpenAPI document, with "try it" calls sent from the page to this
// server with the token the reader pastes in its Authorize dialog (kept in the page only, never stored).
//
// The page and its files are read from node_modules at the first request and kept. The files are served
// under fingerprinted names (a hash of their bytes) and cached for a year; the page is revalidated with
// its ETag. The page runs no inline script: the renderer's bundle and our small initializer are files
// of this origin. Its Content-Security-Policy allows what Swagger UI needs and nothing else (see
// docs/decisions.md): scripts and style sheets of this origin, data: images (its stylesheet's icons),
// and requests ("try it", the document) to this origin only.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { apiError } from '../error-catalogue.js';
import { entityTag } from '../response-cache.js';
import type { ApiResult } from '../route-table.js';
import { acceptsGzip } from '../response-headers.js';

export const DOCS_PATH = '/docs';
export const DOCS_ASSET_PATH = '/docs/assets';

/** Where the page finds the document: the main prefix's (the others serve the same document). */
const OPENAPI_URL = '/services/v5/openapi.json';

export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const PAGE_HEADERS = {
  'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
} as const;

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The media types of the page's files, by extension. */
export const ASSET_TYPES = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
} as const;

/** Our initializer: Swagger UI on the document, "try it" ready, nothing sent elsewhere (no validator badge). */
const INITIALIZER = `// Storyline's API reference: Swagger UI over the server's own OpenAPI document.
(function () {
  var root = document.getElementById('reference');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi'),
    domNode: root,
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    filter: true,
    validatorUrl: null,
    persistAuthorization: false,
    tryItOutEnabled: true
  });
})();
`;

export interface DocsAsset {
  contentType: string;
  body: Buffer;
  gzip: Buffer;
  /** The fingerprint, as the entity tag of the bytes. */
  hash: string;
}

export interface DocsAssets {
  page: Buffer;
  pageEtag: string;
  /** Files by fingerprinted name. */
  files: ReadonlyMap<string, DocsAsset>;
}

/** Reads the renderer's files from the installed swagger-ui-dist package and builds the page naming them. */
export function loadDocsAssets(): DocsAssets {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, DocsAsset>();
  const add = (name: string, extension: keyof typeof ASSET_TYPES, body: Buffer): string => {
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
    const fingerprinted = `${name}.${hash}.${extension}`;
    files.set(fingerprinted, { contentType: ASSET_TYPES[extension], body, gzip: gzipSync(body), hash });
    return `${DOCS_ASSET_PATH}/${fingerprinted}`;
  };
  const css = add('swagger-ui', 'css', readFileSync(join(dist, 'swagger-ui.css')));
  const bundle = add('swagger-ui-bundle', 'js', readFileSync(join(dist, 'swagger-ui-bundle.js')));
  const icon = add('favicon', 'png', readFileSync(join(dist, 'favicon-32x32.png')));
  const initializer = add('reference', 'js', Buffer.from(INITIALIZER));
  const page = Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Storyline API reference</title>
<link rel="stylesheet" href="${css}">
<link rel="icon" type="image/png" href="${icon}">
</head>
<body>
<div id="reference" data-openapi="${OPENAPI_URL}"></div>
<script src="${bundle}"></script>
<script src="${initializer}"></script>
</body>
</html>
`);
  return { page, pageEtag: entityTag(page), files };
}

/** The reference page (revalidated every time: it names the files of this server's build). */
export function docsPage(assets: DocsAssets): ApiResult {
  return {
    kind: 'raw',
    contentType: 'text/html; charset=utf-8',
    body: assets.page,
    headers: { ...PAGE_HEADERS, 'Cache-Control': 'no-cache', ETag: assets.pageEtag },
  };
}

/** One of the page's files by fingerprinted name (gzipped for a client that accepts it); 404 for any other name. */
export function docsAsset(assets: DocsAssets, name: string, acceptEncoding: string | undefined): ApiResult {
  const file = assets.files.get(name);
  if (!file) throw apiError('route_not_found');
  const headers = { ...PAGE_HEADERS, 'Cache-Control': IMMUTABLE, Vary: 'Accept-Encoding' };
  if (acceptsGzip(acceptEncoding)) {
    return { kind: 'raw', contentType: file.contentType, body: file.gzip, headers: { ...headers, 'Content-Encoding': 'gzip', ETag: `"${file.hash}-gzip"` } };
  }
  return { kind: 'raw', contentType: file.contentType, body: file.body, headers: { ...headers, ETag: `"${file.hash}"` } };
}

