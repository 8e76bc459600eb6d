import type { z } from "zod";
import { ParameterError } from "../errors.js";
import type { HttpClient } from "../http/http-client.js";
import type { HttpTryEvent } from "../http/http-messages.js";
import type { Operation } from "./operation.js";

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Told of every try this call makes (for per-partition request counts). */
  readonly onTry?: (event: HttpTryEvent) => void;
}

/** Parameters may be left out when every one of them is optional. */
type CallArgs<S extends z.ZodType> =
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "no required key"
  {} extends z.input<S>
    ? [params?: z.input<S>, options?: CallOptions]
    : [params: z.input<S>, options?: CallOptions];

/** One answer as received: what the extract stage lands, and the load stage reads. */
export interface Answer {
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

/**
 * The typed client of every upstream operation. An operation is a value declared beside the
 * stream that reads it (or beside the command that sends it); the client is told which to send.
 */
export interface ApiClient {
  /** Sends an operation and reads its result: for a command that acts on the answer. */
  call<S extends z.ZodType, R>(operation: Operation<S, R>, ...args: CallArgs<S>): Promise<R>;
  /** Sends an operation and returns its answer as received: for the extract stage to land. */
  send<S extends z.ZodType>(
    operation: Operation<S, unknown>,
    params: z.input<S>,
    options?: CallOptions,
  ): Promise<Answer>;
  /**
   * Follows a next-page link of an operation's answer. Only a link on the upstream's own origin
   * and base path is followed (`ownsLink`); any other throws ParameterError, nothing sent.
   */
  follow(
    operation: Operation<z.ZodType, unknown>,
    link: string,
    options?: CallOptions,
  ): Promise<Answer>;
  /** Whether `link` leads to the upstream itself (and so may be sent the credential). */
  ownsLink(link: string): boolean;
}

/** Validates, then sends: a bad parameter throws ParameterError and never reaches the network. */
async function send<S extends z.ZodType>(
  http: HttpClient,
  operation: Operation<S, unknown>,
  params: z.input<S> | undefined,
  options: CallOptions = {},
): Promise<Answer> {
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
    onTry: options.onTry,
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
): Promise<Answer> {
  const path = http.pathOfLink(link);
  if (path === null) {
    throw new ParameterError(operation.name, "link", "leads outside the upstream; not followed");
  }
  const response = await http.request({
    operation: operation.name,
    method: "GET",
    path,
    signal: options.signal,
    onTry: options.onTry,
  });
  return {
    operation: operation.name,
    params: { link: path },
    status: response.status,
    body: response.body,
    bytes: response.bytes,
  };
}

export function createApiClient(http: HttpClient): ApiClient {
  return {
    call: async (operation, ...[params, options]) => {
      const answer = await send(http, operation, params, options);
      return operation.parse(answer.body, answer.status);
    },
    send: (operation, params, options) => send(http, operation, params, options),
    follow: (operation, link, options) => follow(http, operation, link, options),
    ownsLink: (link) => http.pathOfLink(link) !== null,
  };
}
