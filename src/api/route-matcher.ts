// Finds the route for a request path: strips a version prefix, splits into segments (empty segments from
// double slashes are dropped), percent-decodes them and walks a segment trie built once at start-up.
// Literal segments win over parameters; the walk backtracks when a literal branch leads nowhere.
// A path served by other methods only is not found for this one (Tracker answered `PUT /projects`
// 404 route_not_found); only a method no route serves at all (TRACE, PROPFIND) is "not supported".

import type { HttpMethod, RouteDefinition } from './route-table.js';

/** Every prefix serves the same routes: edge and next forward to v5 (spec, Versioning 4). */
export const VERSION_PREFIXES: readonly (readonly string[])[] = [
  ['services', 'v5'], ['services', 'edge'], ['services', 'next'], ['v5'], ['edge'], ['next'],
];

interface Endpoint {
  route: RouteDefinition;
  /** Segment index -> parameter name. */
  params: readonly (readonly [number, string])[];
}

interface TrieNode {
  literals: Map<string, TrieNode>;
  param: TrieNode | null;
  endpoints: Map<HttpMethod, Endpoint>;
}

export type RouteMatch =
  | { kind: 'found'; route: RouteDefinition; params: Record<string, string>; prefix: string }
  | { kind: 'method_not_supported' }
  | { kind: 'not_found' };

export class RouteMatcher {
  private readonly versioned = newNode();
  private readonly root = newNode();

  constructor(routes: readonly RouteDefinition[]) {
    for (const route of routes) this.add(route);
  }

  /** `method` null: a method no route supports (the path still decides between 404 and 405). */
  match(method: HttpMethod | null, rawPath: string): RouteMatch {
    const segments = decodeSegments(rawPath);
    if (!segments) return { kind: 'not_found' };
    const prefix = VERSION_PREFIXES.find((candidate) => candidate.every((part, i) => segments[i] === part));
    const node = prefix ? walk(this.versioned, segments, prefix.length) : walk(this.root, segments, 0);
    if (!node) return { kind: 'not_found' };
    const endpoint = method ? node.endpoints.get(method) : undefined;
    if (!endpoint) return method === null ? { kind: 'method_not_supported' } : { kind: 'not_found' };
    const params: Record<string, string> = {};
    const offset = prefix ? prefix.length : 0;
    for (const [index, name] of endpoint.params) params[name] = segments[offset + index]!;
    return { kind: 'found', route: endpoint.route, params, prefix: prefix ? `/${prefix.join('/')}` : '' };
  }

  private add(route: RouteDefinition): void {
    let node = route.mount === 'root' ? this.root : this.versioned;
    const params: [number, string][] = [];
    route.path.split('/').filter((part) => part !== '').forEach((part, index) => {
      if (part.startsWith(':')) {
        params.push([index, part.slice(1)]);
        node = node.param ??= newNode();
      } else {
        let next = node.literals.get(part);
        if (!next) node.literals.set(part, (next = newNode()));
        node = next;
      }
    });
    if (node.endpoints.has(route.method)) throw new Error(`route ${route.method} ${route.path} defined twice`);
    node.endpoints.set(route.method, { route, params });
  }
}

function newNode(): TrieNode {
  return { literals: new Map(), param: null, endpoints: new Map() };
}

function walk(node: TrieNode, segments: readonly string[], at: number): TrieNode | null {
  if (at === segments.length) return node.endpoints.size > 0 ? node : null;
  const literal = node.literals.get(segments[at]!);
  const viaLiteral = literal ? walk(literal, segments, at + 1) : null;
  if (viaLiteral) return viaLiteral;
  return node.param ? walk(node.param, segments, at + 1) : null;
}

/** Path segments, percent-decoded; null when the path is not valid percent-encoded UTF-8. */
function decodeSegments(rawPath: string): string[] | null {
  const segments: string[] = [];
  for (const part of rawPath.split('/')) {
    if (part === '') continue;
    if (!part.includes('%')) {
      segments.push(part);
      continue;
    }
    try {
      segments.push(decodeURIComponent(part));
    } catch {
      return null;
    }
  }
  return segments;
}
