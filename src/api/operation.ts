import type { z } from "zod";
import type { HttpRequest } from "../http/http-messages.js";

/** The HTTP side of a call, derived from validated parameters. */
export type OperationRequest = Pick<
  HttpRequest,
  "method" | "path" | "query" | "body" | "headers" | "retry" | "acceptStatus" | "failureIsAnswer"
>;

/**
 * One upstream operation declared as data: its name, how its parameters are validated, how they
 * become a request, and how the answer becomes a typed result (which always keeps the raw body).
 */
export interface Operation<S extends z.ZodType, R> {
  readonly name: string;
  readonly params: S;
  readonly request: (params: z.output<S>) => OperationRequest;
  readonly parse: (body: unknown, status?: number) => R;
}

export function defineOperation<S extends z.ZodType, R>(
  operation: Operation<S, R>,
): Operation<S, R> {
  return operation;
}

/**
 * A path segment from a caller's value (a UPC, an artist name...), encoded so it stays one
 * segment: "/" is escaped by encodeURIComponent, and a value of dots alone ("." or "..", a dot
 * segment that a server would resolve) has its dots escaped too.
 */
export function segment(value: string | number): string {
  const text = String(value);
  return /^\.+$/.test(text) ? text.replaceAll(".", "%2E") : encodeURIComponent(text);
}

export const API_PREFIX = "/api/v1";
