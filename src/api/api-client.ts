import type { z } from "zod";
import { ParameterError } from "../errors.js";
import type { HttpAttemptEvent, HttpClient } from "../http/http-client.js";
import type { Operation } from "./operation.js";
import { artistStatsOperations } from "./operations/artist-stats.js";
import { catalogueOperations } from "./operations/catalogue.js";
import { royaltiesOperations } from "./operations/royalties.js";
import { trendsOperations } from "./operations/trends.js";

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Told of every attempt this call makes (for per-partition request counts). */
  readonly onAttempt?: (event: HttpAttemptEvent) => void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any parameters and result
type AnyOperation = Operation<any, any>;

/** Parameters may be left out when every one of them is optional. */
type CallArgs<S extends z.ZodType> =
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "no required key"
  {} extends z.input<S>
    ? [params?: z.input<S>, options?: CallOptions]
    : [params: z.input<S>, options?: CallOptions];

/** Each operation of a family as a typed function. */
export type BoundOperations<T extends Record<string, AnyOperation>> = {
  readonly [K in keyof T]: T[K] extends Operation<infer S, infer R>
    ? (...args: CallArgs<S>) => Promise<R>
    : never;
};

export const operations = {
  catalogue: catalogueOperations,
  trends: trendsOperations,
  artistStats: artistStatsOperations,
  royalties: royaltiesOperations,
} as const;

export interface ApiClient {
  readonly catalogue: BoundOperations<typeof catalogueOperations>;
  readonly trends: BoundOperations<typeof trendsOperations>;
  readonly artistStats: BoundOperations<typeof artistStatsOperations>;
  readonly royalties: BoundOperations<typeof royaltiesOperations>;
}

/** Validates, then sends: a bad parameter throws ParameterError and never reaches the network. */
export async function callOperation<S extends z.ZodType, R>(
  http: HttpClient,
  operation: Operation<S, R>,
  params: z.input<S> | undefined,
  options: CallOptions = {},
): Promise<R> {
  const parsed = operation.params.safeParse(params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "(parameters)";
    throw new ParameterError(operation.name, field, issue?.message ?? "is invalid");
  }
  const response = await http.request({
    operation: operation.name,
    ...operation.request(parsed.data),
    signal: options.signal,
    onAttempt: options.onAttempt,
  });
  return operation.parse(response.body, response.status);
}

function bind<T extends Record<string, AnyOperation>>(
  http: HttpClient,
  family: T,
): BoundOperations<T> {
  return Object.fromEntries(
    Object.entries(family).map(([key, operation]) => [
      key,
      (params?: unknown, options?: CallOptions) => callOperation(http, operation, params, options),
    ]),
  ) as BoundOperations<T>;
}

/** The typed client of every upstream operation. */
export function createApiClient(http: HttpClient): ApiClient {
  return {
    catalogue: bind(http, operations.catalogue),
    trends: bind(http, operations.trends),
    artistStats: bind(http, operations.artistStats),
    royalties: bind(http, operations.royalties),
  };
}
