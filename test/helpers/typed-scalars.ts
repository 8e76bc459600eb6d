import { JsonDecimal, parseJsonBody } from "../../src/json/json-body.js";
import { pathKey, recordFields } from "../../src/columns/record-fields.js";
import type { TestWarehouse } from "./warehouse.js";

/** How many scalar values the stored records hold, and those no typed column of their row holds. */
export interface TypedScalars {
  readonly total: number;
  /** "table field: value", one per value no column holds exactly. */
  readonly untyped: readonly string[];
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** A decimal's digits without insignificant zeros ("012.50" and "12.5" alike); null for others. */
function decimalDigits(text: string): string | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const whole = (match[2] ?? "").replace(/^0+(?=\d)/, "");
  const fraction = (match[3] ?? "").replace(/0+$/, "");
  return `${match[1] === "-" && `${whole}${fraction}` !== "0" ? "-" : ""}${whole}.${fraction}`;
}

const TIME =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** An instant's milliseconds, a time without a zone read as UTC (as its column keeps it). */
function instantMs(text: string): number | null {
  const match = TIME.exec(text);
  if (!match) return null;
  const zone = match[3] ?? "Z";
  const offset = /^[+-]\d{2}$/.test(zone) ? `${zone}:00` : zone;
  const ms = Date.parse(`${match[1]}T${match[2] ?? "00:00:00"}${offset}`);
  return Number.isFinite(ms) ? ms : null;
}

/** Whether a column's text holds a value as sent: the same text, decimal or instant. */
function holdsExactly(stored: string, sent: unknown): boolean {
  const text = sent instanceof JsonDecimal ? sent.text : String(sent);
  if (stored === text) return true;
  const [a, b] = [decimalDigits(stored), decimalDigits(text)];
  if (a !== null && b !== null) return a === b;
  const [s, t] = [instantMs(stored), instantMs(text)];
  return s !== null && t !== null && s === t;
}

function isScalar(value: unknown): boolean {
  return value !== null && (typeof value !== "object" || value instanceof JsonDecimal);
}

/**
 * Every scalar value of every stored record (its `raw`, top level and one object deep, as the
 * discovered columns take them) in the tables of `schemas`, and whether a typed column of its
 * row holds it exactly: the field's discovered column, or a declared column holding that value
 * (`product_id` the record's `id`). A value only `raw` keeps is what an analyst cannot query
 * typed.
 */
export async function typedScalars(
  warehouse: TestWarehouse,
  schemas: readonly string[],
): Promise<TypedScalars> {
  const tables = await warehouse.query<{ name: string }>(
    `select table_schema || '.' || table_name as name from information_schema.columns
      where column_name = 'raw' and table_schema = any($1) order by 1`,
    [schemas],
  );
  let total = 0;
  const untyped: string[] = [];
  for (const { name } of tables) {
    const discovered = new Map(
      (
        await warehouse.query<{ field: string[]; column_name: string }>(
          "select field, column_name from etl.discovered_columns where table_name = $1",
          [name],
        )
      ).map((row) => [pathKey(row.field), row.column_name]),
    );
    const rows = await warehouse.query<{ raw: string; columns: Record<string, string> | null }>(
      `select t.raw::text as raw,
              (select jsonb_object_agg(key, value) from jsonb_each_text(to_jsonb(t) - 'raw')
                where value is not null) as columns
         from ${name} t where t.raw is not null`,
    );
    for (const row of rows) {
      const columns = row.columns ?? {};
      for (const { path, value } of recordFields(parseJsonBody(row.raw))) {
        if (!isScalar(value)) continue;
        total += 1;
        const own = discovered.get(pathKey(path));
        const held =
          own === undefined
            ? Object.values(columns).some((stored) => holdsExactly(stored, value))
            : columns[own] !== undefined && holdsExactly(columns[own], value);
        if (!held) untyped.push(`${name} ${path.join(".")}: ${JSON.stringify(value)}`);
      }
    }
  }
  return { total, untyped };
}
