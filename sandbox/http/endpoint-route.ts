import { API_PREFIX } from "../../src/api/operation.js";
import { operationNameOf } from "../../src/api/endpoint.js";
import type { SandboxDataset } from "../dataset/dataset.js";
import { type Field, parseParams, type Parsed } from "./params.js";
import { ok } from "./reply.js";
import type { Route } from "./router.js";

/** Query parameters by name, each read and checked as a strict upstream does. */
export type ParamSpec = Record<string, Field<unknown>>;

/**
 * One GET endpoint the sandbox serves from its records (`sandbox/endpoints/<family>/<name>.ts`):
 * the records it holds for a request's parameters, and how else an upstream could present them.
 * Its functions are methods, so that a module typed by its own parameters stands among the
 * folder's modules of any parameters.
 */
export interface SandboxEndpoint<S extends ParamSpec = ParamSpec, R = unknown> {
  /** The path as the spec writes it, with its prefix: `/api/v1/artist-stats/cm-stats`. */
  readonly path: string;
  /**
   * Declared in a constant of its own: written in the call, its fields' generic readers would be
   * typed before `records` is, and its parameters would reach `records` as unknown.
   */
  readonly params: S;
  /**
   * The records for these parameters, from the seeded dataset at its revision (the truth the
   * tests compare the warehouse with); an HttpError for what the upstream does not know.
   */
  records(data: SandboxDataset, params: Parsed<S>): readonly R[];
  /**
   * A plausible other shape of a payload the spec does not show: the same records presented
   * otherwise, served while the `shapes.otherShapes` knob names this endpoint, and selected by the
   * shape variant `variant`.
   */
  readonly otherShape?: {
    readonly variant: string;
    serve(records: readonly R[]): unknown[];
  };
  /** The success body around the records (default `{obj: records}`, as the statistics do). */
  readonly body?: (records: readonly unknown[]) => unknown;
  /**
   * Under the `renamedFields` habit, the fields served under other names, by the records' own
   * names (a key's fields keep theirs, so that the tests can tell the records apart).
   */
  readonly renamedFields?: Readonly<Record<string, string>>;
}

/** Declares an endpoint module, its parameters' types carried to its records. */
export function sandboxEndpoint<S extends ParamSpec, R>(
  endpoint: SandboxEndpoint<S, R>,
): SandboxEndpoint<S, R> {
  return endpoint;
}

/**
 * Declares a module's route written by hand: for an operation that is no GET of records (a POST,
 * a body of parameters, a path parameter, an answer shaped by the knobs), as the worker writes
 * those with `defineOperation`.
 */
export function sandboxRoute(route: Route): Route {
  return route;
}

/** The operation's name a module's path gives, as the worker's client names it. */
export function moduleOperation(endpoint: SandboxEndpoint): string {
  return operationNameOf(endpoint.path.slice(API_PREFIX.length));
}

/** The route of a module's endpoint, counted under the operation name its path gives. */
export function endpointRoute(name: string, endpoint: SandboxEndpoint): Route {
  return {
    method: "GET",
    path: endpoint.path,
    operation: moduleOperation(endpoint),
    handle: ({ query, data, knobs }) => {
      const records = endpoint.records(data, parseParams(query, endpoint.params));
      const other = endpoint.otherShape;
      const served =
        other && knobs.shapes.otherShapes.includes(name) ? other.serve(records) : [...records];
      return ok(endpoint.body ? endpoint.body(served) : { obj: served });
    },
  };
}
