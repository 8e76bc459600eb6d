import { type Kysely, sql } from "kysely";
import { type Candidate, roleValue } from "./role-candidates.js";
import { DAYS_CHECKED, type Evidence } from "./role-evidence.js";

/** A catalogue table whose titles the trends list reports under one selection type. */
export interface TitledTable {
  readonly table: string;
  readonly id: string;
  readonly selection: string;
}

/**
 * Which field of a catalogue record is its title: the one that matches what the trends list
 * reports for the same entity (its resolved label), entity by entity. Without a label to compare
 * with, nothing is checked, and the candidates stand on their names alone.
 */
export async function titleEvidence(
  db: Kysely<unknown>,
  titled: TitledTable,
  label: Candidate | null,
  candidates: readonly Candidate[],
): Promise<Evidence> {
  const { rows: counted } = await sql<{ rows: number }>`
    select count(*)::integer as rows from ${sql.table(titled.table)}`.execute(db);
  const rows = counted[0]?.rows ?? 0;
  if (label === null) {
    return {
      cases: "records",
      rows,
      test: "no trends label to compare with: its name alone",
      candidates: candidates.map((candidate) => ({
        candidate,
        matched: 0,
        checked: 0,
        excluded: null,
      })),
    };
  }
  const matches = candidates.map(
    (c, i) =>
      sql`, count(*) filter (where ${roleValue(c, "text", "e")} = l.label)::integer
            as ${sql.ref(`m${i}`)}`,
  );
  const { rows: found } = await sql<Record<string, number>>`
    with latest as (
      select max(day) as day from sales.trend_items where selection_type = ${titled.selection}),
    labels as (
      select item_id, max(${roleValue(label, "text")}) as label
        from sales.trend_items
       where selection_type = ${titled.selection}
         and day > (select day from latest) - ${DAYS_CHECKED}::integer
       group by item_id)
    select count(*)::integer as checked ${sql.join(matches, sql``)}
      from ${sql.table(`${titled.table}`)} as e
      join labels l on l.item_id = e.${sql.ref(titled.id)}::text and l.label is not null`.execute(
    db,
  );
  const row = found[0] ?? {};
  return {
    cases: "records",
    rows,
    test: `records whose text in it is the label the trends list reports for them (selection type ${titled.selection})`,
    candidates: candidates.map((candidate, i) => ({
      candidate,
      matched: Number(row[`m${i}`] ?? 0),
      checked: Number(row.checked ?? 0),
      excluded: null,
    })),
  };
}
