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
  const parts = pathname.slice(1).split('/');
  try {
    // Most paths carry no escapes: decoding each segment anyway was a poll's cost.
    for (let i = 0; i < parts.length; i++)
      if (parts[i]!.includes('%')) parts[i] = decodeURIComponent(parts[i]!);
  } catch {
    return undefined;
  }
  return parts;
}

export class Router {
  /** By number of segments: a path is compared with the routes of its own length only. */
  private readonly routes = new Map<number, Route[]>();

  /** Registers `handler` for `method` on `pattern`; a duplicate method + pattern is an error. */
  add(method: string, pattern: string, handler: RawHandler): void {
    const upper = method.toUpperCase();
    const segments = compile(pattern);
    let sameLength = this.routes.get(segments.length);
    if (!sameLength) {
      sameLength = [];
      this.routes.set(segments.length, sameLength);
    }
    if (sameLength.some((r) => r.method === upper && r.pattern === pattern)) {
      throw new Error(`route ${upper} ${pattern} is already registered`);
    }
    sameLength.push({
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
    const upper = method.toUpperCase();
    let best: Route | undefined;
    let allowed: Set<string> | undefined;
    for (const route of this.routes.get(parts.length) ?? []) {
      if (!segmentsMatch(route.segments, parts)) continue;
      if (route.method !== upper) {
        allowed ??= new Set();
        allowed.add(route.method);
        continue;
      }
      // A literal beats a parameter in the same place (e.g. …/hosts over …/{id}).
      if (!best || route.literals > best.literals) best = route;
    }
    if (best) {
      return {
        kind: 'found',
        handler: best.handler,
        params: paramsOf(best.segments, parts),
        pattern: best.pattern,
      };
    }
    if (allowed) return { kind: 'method-not-allowed', allowed: [...allowed].sort() };
    return { kind: 'not-found' };
  }
}

/** Whether `parts` (as many as `segments`) fit the pattern: literals equal, parameters not empty. */
function segmentsMatch(segments: readonly Segment[], parts: readonly string[]): boolean {
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if ('literal' in segment ? segment.literal !== part : part === '') return false;
  }
  return true;
}

function paramsOf(segments: readonly Segment[], parts: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if ('param' in segment) params[segment.param] = parts[i]!;
  }
  return params;
}
