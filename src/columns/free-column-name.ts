import { columnNameOf, fittedName, joinedName, numberedName } from "./column-names.js";

/** Who holds a name among a table's columns: the pipeline itself, or an upstream field. */
export type NameHolder = typeof PIPELINE | { readonly field: readonly string[] };

/** Who holds `name` among a table's columns; undefined where no column has it. */
export type HolderOf = (name: string) => NameHolder | undefined;

/** A column of the pipeline's own: a key, a declared field, the scope, `raw`, `synced_at`. */
export const PIPELINE = "pipeline";

/** Begins the name of a field whose own name is one of the pipeline's columns. */
const UPSTREAM_PREFIX = "upstream_";

/** A name a field's column could not take, and who holds it. */
export interface PassedOver {
  readonly name: string;
  readonly holder: NameHolder;
}

/** The name a new column of a field takes, and the names taken before it, in the order tried. */
export interface FreeColumnName {
  readonly column: string;
  readonly passedOver: readonly PassedOver[];
}

/**
 * The field's name with UPSTREAM_PREFIX: `synced_at` → `upstream_synced_at`; `_7day` →
 * `upstream_7day`, whose `_` only kept the name from starting with a digit.
 */
function upstreamName(path: readonly string[]): string {
  return fittedName(`${UPSTREAM_PREFIX}${joinedName(path).replace(/^_/, "")}`, path);
}

/**
 * The name of a new column of the field at `path`, `holderOf` saying who holds each name of the
 * table now. The field's own name (columnNameOf) where free. Taken by a column of the pipeline's
 * own, the name says where the column comes from: `upstream_synced_at`. Still taken (that name
 * too, or the own name by another field that snake-cases the same, as `fooBar` and `foo_bar`),
 * the first of that name with `_2`, `_3`, … that is free. Every name fits Postgres's 63 bytes.
 * The name depends on the table as it is, so it is chosen once, when the column is added, and
 * kept: a column that exists is never named again.
 */
export function freeColumnName(path: readonly string[], holderOf: HolderOf): FreeColumnName {
  const passedOver: PassedOver[] = [];
  const free = (name: string): boolean => {
    const holder = holderOf(name);
    if (holder !== undefined) passedOver.push({ name, holder });
    return holder === undefined;
  };
  const own = columnNameOf(path);
  if (free(own)) return { column: own, passedOver };
  const base = passedOver[0]?.holder === PIPELINE ? upstreamName(path) : own;
  if (base !== own && free(base)) return { column: base, passedOver };
  for (let n = 2; ; n++) {
    const numbered = numberedName(base, n);
    if (free(numbered)) return { column: numbered, passedOver };
  }
}

/** A field's path as its column's comment names it: `"photo"."mimeType"`. */
export function quotedField(path: readonly string[]): string {
  return path.map((part) => JSON.stringify(part)).join(".");
}

function heldBy({ name, holder }: PassedOver): string {
  return holder === PIPELINE
    ? `${name} is one of the pipeline's own columns`
    : `${name} holds the upstream's field ${quotedField(holder.field)}`;
}

/**
 * Why a column is not named as its field, for its comment: "Named upstream_synced_at because
 * synced_at is one of the pipeline's own columns." Null for a column of its field's own name.
 */
export function whyNamed({ column, passedOver }: FreeColumnName): string | null {
  if (passedOver.length === 0) return null;
  const reasons = passedOver.map(heldBy);
  const last = reasons.pop() ?? "";
  const listed = reasons.length === 0 ? last : `${reasons.join(", ")} and ${last}`;
  return `Named ${column} because ${listed}.`;
}
