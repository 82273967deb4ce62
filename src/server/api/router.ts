// Method + path-pattern routing on node:http, without a framework. Patterns are absolute paths
// with `{name}` segments matching one non-empty segment. Anyone can add handlers (the image
// service mounts its routes on the same server); unknown paths get 404 and known paths with
// another method 405, both in go-openapi's {"code","message"} shape.

import type { IncomingMessage, ServerResponse } from 'node:http';

export type RouteParams = Readonly<Record<string, string>>;

export type RawHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: RouteParams,
  url: URL,
) => void | Promise<void>;

type Segment = { literal: string } | { param: string };

interface Route {
  method: string;
  pattern: string;
  segments: Segment[];
  literals: number;
  handler: RawHandler;
}

export type RouteMatch =
  | { kind: 'found'; handler: RawHandler; params: RouteParams; pattern: string }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

function compile(pattern: string): Segment[] {
  if (!pattern.startsWith('/')) throw new Error(`route pattern must start with '/': ${pattern}`);
  return pattern
    .slice(1)
    .split('/')
    .map((part) => {
      const param = /^\{([A-Za-z0-9_-]+)\}$/.exec(part);
      if (param) return { param: param[1]! };
      if (part.includes('{') || part.includes('}'))
        throw new Error(`bad route segment ${part} in ${pattern}`);
      return { literal: part };
    });
}

function splitPath(pathname: string): string[] | undefined {
  try {
    return pathname.slice(1).split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

export class Router {
  private readonly routes: Route[] = [];

  /** Registers `handler` for `method` on `pattern`; a duplicate method + pattern is an error. */
  add(method: string, pattern: string, handler: RawHandler): void {
    const upper = method.toUpperCase();
    if (this.routes.some((r) => r.method === upper && r.pattern === pattern)) {
      throw new Error(`route ${upper} ${pattern} is already registered`);
    }
    const segments = compile(pattern);
    this.routes.push({
      method: upper,
      pattern,
      segments,
      literals: segments.filter((s) => 'literal' in s).length,
      handler,
    });
  }

  match(method: string, pathname: string): RouteMatch {
    const parts = splitPath(pathname);
    if (!parts) return { kind: 'not-found' };
    let best: { route: Route; params: Record<string, string> } | undefined;
    const allowed = new Set<string>();
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method !== method.toUpperCase()) {
        allowed.add(route.method);
        continue;
      }
      // A literal beats a parameter in the same place (e.g. …/hosts over …/{id}).
      if (!best || route.literals > best.route.literals) best = { route, params };
    }
    if (best)
      return { kind: 'found', handler: best.route.handler, params: best.params, pattern: best.route.pattern };
    if (allowed.size > 0) return { kind: 'method-not-allowed', allowed: [...allowed].sort() };
    return { kind: 'not-found' };
  }
}

function matchSegments(
  segments: readonly Segment[],
  parts: readonly string[],
): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if ('literal' in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      if (part === '') return undefined;
      params[segment.param] = part;
    }
  }
  return params;
}
