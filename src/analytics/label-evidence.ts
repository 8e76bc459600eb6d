import { type Kysely, sql } from "kysely";
import { type Candidate, roleValue } from "./role-candidates.js";
import { DAYS_CHECKED, type Evidence } from "./role-evidence.js";

/** Below this share of distinct values per item, a text is shared by items: not their label. */
const DISTINCT_SHARE = 0.05;

/**
 * Which item field is the entity's label: a text on every item, the same for an item on every
 * day it is listed (matched: the items it is stable for), distinct across items (a field shared
 * by nearly all, such as a currency, is excluded), and not the item's id again. Of two that are
 * stable alike, the one with more distinct values names the items better (a title, not an artist).
 */
export async function labelEvidence(
  db: Kysely<unknown>,
  selection: string,
  candidates: readonly Candidate[],
): Promise<Evidence> {
  const values = candidates.map((c, i) => sql`, ${roleValue(c, "text")} as ${sql.ref(`v${i}`)}`);
  const perItem = candidates.map((_, i) => {
    const v = sql.ref(`v${i}`);
    return sql`, count(${v}) as ${sql.ref(`c${i}`)}, count(distinct ${v}) as ${sql.ref(`d${i}`)},
               bool_and(${v} = item_id) as ${sql.ref(`i${i}`)}, min(${v}) as ${sql.ref(`x${i}`)}`;
  });
  const totals = candidates.map((_, i) => {
    const [c, d, id, x] = ["c", "d", "i", "x"].map((p) => sql.ref(`${p}${i}`));
    return sql`, count(*) filter (where ${c} = n and ${d} = 1)::integer as ${sql.ref(`m${i}`)},
               count(distinct ${x})::integer as ${sql.ref(`u${i}`)},
               count(*) filter (where ${id})::integer as ${sql.ref(`s${i}`)}`;
  });
  const { rows } = await sql<Record<string, number>>`
    with latest as (
      select max(day) as day from sales.trend_items where selection_type = ${selection}),
    items as (
      select item_id ${sql.join(values, sql``)}
        from sales.trend_items
       where selection_type = ${selection} and day > (select day from latest) - ${DAYS_CHECKED}::integer),
    per_item as (
      select item_id, count(*) as n ${sql.join(perItem, sql``)} from items group by item_id)
    select (select count(*) from items)::integer as rows, count(*)::integer as checked
           ${sql.join(totals, sql``)}
      from per_item`.execute(db);
  const row = rows[0] ?? {};
  const checked = Number(row.checked ?? 0);
  return {
    cases: "items",
    rows: Number(row.rows ?? 0),
    test: "items that carry one text in it on every day they are listed",
    candidates: candidates.map((candidate, i) => {
      const distinct = Number(row[`u${i}`] ?? 0);
      const sameAsId = Number(row[`s${i}`] ?? 0);
      let excluded: string | null = null;
      if (checked > 0 && sameAsId * 2 > checked) excluded = "it is the item's id again";
      else if (checked > 1 && (distinct <= 1 || distinct < checked * DISTINCT_SHARE)) {
        excluded = `it takes ${distinct} values over ${checked} items: shared, not a label`;
      }
      return { candidate, matched: Number(row[`m${i}`] ?? 0), checked, excluded, score: distinct };
    }),
  };
}
