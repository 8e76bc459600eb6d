import type { RawBuilder } from "kysely";

/**
 * A view or a function of the analytics layer, as built from the roles: its definition and, for
 * a view, its comments (the view's and each column's, which name where each figure comes from).
 */
export interface AnalyticsObject {
  /** Schema-qualified name; a function's with its argument types. */
  readonly name: string;
  readonly kind: "view" | "function";
  /** A view's query, or a function's whole `create or replace` statement. */
  readonly definition: RawBuilder<unknown>;
  readonly comment?: string;
  readonly columns?: Readonly<Record<string, string>>;
}
