import type { IncomingHttpHeaders } from "node:http";
import type { SandboxDataset } from "../dataset/dataset.js";
import type { SandboxKnobs } from "../interfaces.js";
import type { Reply } from "./reply.js";

export interface RouteContext {
  /** Decoded path parameters, by the name after ":" in the route's path. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** The JSON body as an object ({} when empty); throws a 400 HttpError when malformed. */
  body(this: void): Record<string, unknown>;
  headers: IncomingHttpHeaders;
  data: SandboxDataset;
  knobs: SandboxKnobs;
}

export interface Route {
  method: "GET" | "POST";
  /** e.g. "/api/v1/getproductByupc/:upc" */
  path: string;
  /** The operation name counted in stats (the client uses the same names). */
  operation: string;
  handle(context: RouteContext): Reply;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** The route for a method and path, with its parameters; null when none matches. */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  pathname: string,
): RouteMatch | null {
  const segments = pathname.split("/");
  for (const route of routes) {
    if (route.method !== method) continue;
    const params = matchSegments(route.path.split("/"), segments);
    if (params) return { route, params };
  }
  return null;
}

function matchSegments(pattern: string[], segments: string[]): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of pattern.entries()) {
    const segment = segments[i] ?? "";
    if (part.startsWith(":")) {
      if (segment === "") return null;
      try {
        params[part.slice(1)] = decodeURIComponent(segment);
      } catch {
        return null; // malformed percent-encoding: no route has such a path
      }
    } else if (part !== segment) {
      return null;
    }
  }
  return params;
}
