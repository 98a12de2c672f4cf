// The API reference as the server serves it:
//
//   GET <prefix>/openapi.json   the OpenAPI 3.1 document (document.ts) under every version prefix, public;
//                               `servers` names the prefix asked. Built at the first request, then kept
//                               (one serialization per prefix), with an ETag for revalidation.
//   GET /docs                   the reference rendered by Swagger UI (docs-page.ts), with "try it"
//   GET /docs/assets/:name      the renderer's files, bundled with the server (fingerprinted, cached for a year)
//
// The routes list themselves in the document through the same route table (the pages are `unlisted`:
// they are for browsers, not API calls).
import { entityTag } from '../response-cache.js';
import { JSON_CONTENT_TYPE } from '../response-headers.js';
import type { ApiResult, RouteDefinition } from '../route-table.js';
import { openApiDocument, type ReferenceSource } from './document.js';
import { ASSET_TYPES, docsAsset, docsPage, DOCS_ASSET_PATH, DOCS_PATH, type DocsAssets } from './docs-page.js';

export const OPENAPI_PATH = '/openapi.json';

export interface ReferenceDependencies {
  /** What the document is generated from; called once, at the first request for it. */
  source(): ReferenceSource;
  /** The renderer's files (read once, at the first request for the page). */
  assets(): DocsAssets;
}

export function referenceRoutes(deps: ReferenceDependencies): RouteDefinition[] {
  let source: ReferenceSource | null = null;
  const served = new Map<string, { body: Buffer; etag: string }>();
  /** The document for a prefix: the same for every request, so serialized once per prefix (six at most). */
  const documentFor = (prefix: string) => {
    let document = served.get(prefix);
    if (!document) {
      source ??= deps.source();
      const body = Buffer.from(JSON.stringify(openApiDocument(source, prefix)));
      served.set(prefix, (document = { body, etag: entityTag(body) }));
    }
    return document;
  };
  let assets: DocsAssets | null = null;
  const docsAssets = () => (assets ??= deps.assets());

  return [
    {
      method: 'GET',
      path: OPENAPI_PATH,
      access: 'public',
      answers: { raw: JSON_CONTENT_TYPE },
      summary: 'This reference as an OpenAPI 3.1 document',
      async handle(req): Promise<ApiResult> {
        const { body, etag } = documentFor(req.versionPrefix);
        return { kind: 'raw', contentType: JSON_CONTENT_TYPE, body, headers: { ETag: etag } };
      },
    },
    {
      method: 'GET',
      path: DOCS_PATH,
      mount: 'root',
      access: 'public',
      unlisted: true,
      answers: { raw: 'text/html' },
      summary: 'The API reference page',
      handle: async () => docsPage(docsAssets()),
    },
    {
      method: 'GET',
      path: `${DOCS_ASSET_PATH}/:name`,
      mount: 'root',
      access: 'public',
      unlisted: true,
      answers: { raw: Object.values(ASSET_TYPES) },
      summary: "The reference page's files",
      handle: async (req) => docsAsset(docsAssets(), req.params['name'] ?? '', req.header('accept-encoding')),
    },
  ];
}
