import { Counter, Gauge, type Registry } from "prom-client";
import type { KeptReading } from "./kept-reading.js";
import { label } from "./metric-label.js";
import type { DisagreementCount } from "../warehouse/reading-checks.js";
import type { SchemaChangeCount } from "../warehouse/schema-changes.js";

/**
 * etl_schema_changes_total: a counter, but counted by Postgres rather than by this process, so it
 * is the same in every worker and never restarts from 0 (a change made by another worker, or
 * before a restart, is in it). Not an alert's: a column added or widened is news, not a failure.
 */
export function registerSchemaChanges(
  registry: Registry,
  changesReading: KeptReading<readonly SchemaChangeCount[]>,
): void {
  const changes: Counter<"table" | "change"> = new Counter({
    name: "etl_schema_changes_total",
    help: "Columns added to a table for a new upstream field, or widened, by table and change.",
    labelNames: ["table", "change"] as const,
    registers: [registry],
    collect: async () => {
      await changesReading.read();
      // Reset first, then the counts as Postgres has them: every worker exports the same totals.
      changes.reset();
      for (const { table, change, count } of changesReading.value ?? []) {
        changes.inc({ table: label(table), change: label(change) }, count);
      }
    },
  });
}

export function registerDisagreements(
  registry: Registry,
  reading: KeptReading<readonly DisagreementCount[]>,
): void {
  const gauge: Gauge<"selection_type" | "sale_type"> = new Gauge({
    name: "etl_reading_disagreements",
    help: "Days whose three trends readings disagree, by selection and sale type.",
    labelNames: ["selection_type", "sale_type"] as const,
    registers: [registry],
    collect: async () => {
      await reading.read();
      gauge.reset();
      for (const { selectionType, saleType, days } of reading.value ?? []) {
        gauge.set({ selection_type: label(selectionType), sale_type: label(saleType) }, days);
      }
    },
  });
}
