import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { builtDefinitions, recordBuilt } from "./analytics-builds.js";
import type { AnalyticsObject } from "./analytics-object.js";
import { artistViews } from "./artist-views.js";
import { catalogueViews } from "./catalogue-views.js";
import { readingChecks } from "./reading-checks.js";
import { type ResolvedRoles, rolesAsRecorded } from "./resolved-roles.js";
import { salesViews } from "./sales-views.js";

/** Every object built from the roles, in the order they are built. */
export function analyticsObjects(roles: ResolvedRoles): AnalyticsObject[] {
  return [
    ...catalogueViews(roles),
    ...salesViews(roles),
    ...artistViews(roles),
    ...readingChecks(roles),
  ];
}

function fingerprint(db: Kysely<unknown>, object: AnalyticsObject): string {
  const { sql: text } = object.definition.compile(db);
  return createHash("sha256")
    .update(JSON.stringify([text, object.comment ?? null, object.columns ?? null]))
    .digest("hex");
}

async function build(trx: Kysely<unknown>, object: AnalyticsObject): Promise<void> {
  if (object.kind === "function") {
    await object.definition.execute(trx);
    return;
  }
  // Replaced in place: the views built on it stay, and so do its grants.
  await sql`create or replace view ${sql.table(object.name)} as ${object.definition}`.execute(trx);
  if (object.comment) {
    await sql`comment on view ${sql.table(object.name)} is ${sql.lit(object.comment)}`.execute(trx);
  }
  const [schema, name] = object.name.split(".") as [string, string];
  for (const [column, text] of Object.entries(object.columns ?? {})) {
    await sql`comment on column ${sql.id(schema, name, column)} is ${sql.lit(text)}`.execute(trx);
  }
}

/**
 * Builds again, in the caller's transaction, each object whose definition changed since it was
 * last built (etl.analytics_builds), or each with `force`: a view is replaced in place, so a
 * reader's grants and the views on it stay. The names of the objects built.
 */
export async function buildAnalytics(
  trx: Kysely<unknown>,
  roles: ResolvedRoles,
  force = false,
): Promise<string[]> {
  const built = await builtDefinitions(trx);
  const changed: string[] = [];
  for (const object of analyticsObjects(roles)) {
    const hash = fingerprint(trx, object);
    if (!force && built.get(object.name) === hash) continue;
    await build(trx, object);
    await recordBuilt(trx, object.name, hash);
    changed.push(object.name);
  }
  return changed;
}

/**
 * Builds every object again from the roles as recorded, their columns' types read anew: after a
 * column a view reads was widened (the views set aside for it, in the caller's transaction),
 * where a definition made for the old type no longer holds (a sum of what is now text).
 */
export async function rebuildFromRecorded(trx: Kysely<unknown>): Promise<void> {
  await buildAnalytics(trx, await rolesAsRecorded(trx), true);
}
