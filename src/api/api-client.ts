import type { z } from "zod";
import { ParameterError } from "../errors.js";
import type { HttpClient } from "../http/http-client.js";
import type { HttpAttemptEvent } from "../http/http-exchange.js";
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

/** One answer as received: what the extract stage lands, and the load stage reads. */
export interface Exchange {
  readonly operation: string;
  /** The parameters as sent, after validation (a followed link: `{link}`); never the credential. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly status: number;
  /** The body parsed as JSON. */
  readonly body: unknown;
  /**
   * The body exactly as received, as its UTF-8 bytes: outside V8's heap and one byte a character,
   * where its text is two bytes a character once any is above U+00FF. The text is not kept once
   * parsed: beside the parsed body and the rows read from it, it would be the largest part of
   * what a large answer holds in memory until its rows are written.
   */
  readonly bytes: Buffer;
}

export interface ApiClient {
  readonly catalogue: BoundOperations<typeof catalogueOperations>;
  readonly trends: BoundOperations<typeof trendsOperations>;
  readonly artistStats: BoundOperations<typeof artistStatsOperations>;
  readonly royalties: BoundOperations<typeof royaltiesOperations>;
  /** Calls an operation and returns its answer unparsed, for landing. */
  exchange<S extends z.ZodType>(
    operation: Operation<S, unknown>,
    params: z.input<S>,
    options?: CallOptions,
  ): Promise<Exchange>;
  /**
   * Follows a next-page link of an operation's answer. Only a link on the upstream's own origin
   * and base path is followed (`ownsLink`); any other throws ParameterError, nothing sent.
   */
  follow(
    operation: Operation<z.ZodType, unknown>,
    link: string,
    options?: CallOptions,
  ): Promise<Exchange>;
  /** Whether `link` leads to the upstream itself (and so may be sent the credential). */
  ownsLink(link: string): boolean;
}

/** Validates, then sends: a bad parameter throws ParameterError and never reaches the network. */
async function exchange<S extends z.ZodType>(
  http: HttpClient,
  operation: Operation<S, unknown>,
  params: z.input<S> | undefined,
  options: CallOptions = {},
): Promise<Exchange> {
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
  return {
    operation: operation.name,
    params: parsed.data as Record<string, unknown>,
    status: response.status,
    body: response.body,
    bytes: response.bytes,
  };
}

async function follow(
  http: HttpClient,
  operation: Operation<z.ZodType, unknown>,
  link: string,
  options: CallOptions = {},
): Promise<Exchange> {
  const path = http.pathOfLink(link);
  if (path === null) {
    throw new ParameterError(operation.name, "link", "leads outside the upstream; not followed");
  }
  const response = await http.request({
    operation: operation.name,
    method: "GET",
    path,
    signal: options.signal,
    onAttempt: options.onAttempt,
  });
  return {
    operation: operation.name,
    params: { link: path },
    status: response.status,
    body: response.body,
    bytes: response.bytes,
  };
}

export async function callOperation<S extends z.ZodType, R>(
  http: HttpClient,
  operation: Operation<S, R>,
  params: z.input<S> | undefined,
  options: CallOptions = {},
): Promise<R> {
  const answer = await exchange(http, operation, params, options);
  return operation.parse(answer.body, answer.status);
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
    exchange: (operation, params, options) => exchange(http, operation, params, options),
    follow: (operation, link, options) => follow(http, operation, link, options),
    ownsLink: (link) => http.pathOfLink(link) !== null,
  };
}
