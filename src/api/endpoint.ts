import type { z } from "zod";
import { API_PREFIX, defineOperation, type Operation } from "./operation.js";
import { type ObjectAnswer, type RecordList, toObjectAnswer, toRecordList } from "./results.js";

/** Parameters sent as a query string: each a text or a number, or left out. */
type QuerySchema = z.ZodType<Record<string, string | number | undefined>>;

const camelCase = (segment: string) =>
  segment
    .split(/[-_]+/)
    .filter((word) => word !== "")
    .map((word, i) => (i === 0 ? word : `${word.charAt(0).toUpperCase()}${word.slice(1)}`))
    .join("");

/**
 * The operation's name of an endpoint, from its path under the API's prefix: each segment in
 * camelCase, joined by dots (`/artist-stats/cm-stats` is `artistStats.cmStats`). It labels the
 * metrics, errors and landed responses, so a path names its operation the same way wherever it
 * is read.
 */
export function operationNameOf(path: string): string {
  return path
    .split("/")
    .filter((segment) => segment !== "")
    .map(camelCase)
    .join(".");
}

function queryEndpoint<S extends QuerySchema, R>(
  path: string,
  params: S,
  parse: (body: unknown) => R,
): Operation<S, R> {
  return defineOperation({
    name: operationNameOf(path),
    params,
    request: (query: z.output<S>) => ({
      method: "GET" as const,
      path: `${API_PREFIX}${path}`,
      query,
    }),
    parse,
  });
}

/** A GET of `path` (under the API's prefix) with its parameters in the query, answering a list. */
export function listEndpoint<S extends QuerySchema>(
  path: string,
  params: S,
): Operation<S, RecordList> {
  return queryEndpoint(path, params, toRecordList);
}

/** A GET of `path` (under the API's prefix) with its parameters in the query, answering one object. */
export function objectEndpoint<S extends QuerySchema>(
  path: string,
  params: S,
): Operation<S, ObjectAnswer> {
  return queryEndpoint(path, params, toObjectAnswer);
}
