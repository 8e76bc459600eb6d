import { type Kysely, sql } from "kysely";
import { commentOn } from "./support/comment-on.js";

/**
 * The meanings the analytics views need (a list item's units, a title, a change), each resolved to
 * a typed column by the worker from the data or the configuration, and every change of them; the
 * definitions the worker last built the views and the readings' check from. The views themselves
 * are built by the worker from the roles (`etl migrate` does it first), no longer by migrations.
 * A reading check that lacks a reading is incomplete: its agree is null, and it says why. Only
 * adds, and lets agree be null.
 */

const ROLES = {
  role: 'The role: trend_item_units, trend_item_label, product_title, asset_title, reported_change, playlist_followers or placement_removed_at (docs/warehouse.md, "Roles").',
  scope:
    "The part of the table it is resolved in: `<selection type>.<sale type>` for the units, a selection type for the labels, empty for the others.",
  table_name: "The table whose column carries it.",
  column_name: "The column the views read; null when the role is not resolved.",
  field: "The upstream's field that column holds, as the configuration names it.",
  data_type: "The column's type.",
  how: "configured (etl.config.json's roles), inferred (from the data), pending (no rows yet), absent (no column could hold it), unresolved (none fits) or ambiguous (several fit alike).",
  summary: "What it resolved to and why, or why not and what settles it: one sentence.",
  evidence:
    "Every candidate column with the cases it matched and was checked on, and its verdict (chosen, lost, tied, excluded).",
  resolved_at: "When it was last resolved (after each run, and by etl migrate).",
  changed_at: "When its column or how it was resolved last changed.",
};

const ROLE_CHANGES = {
  change_id: "Identifier, in the order the changes were made.",
  changed_at: "When the change was made (the views were rebuilt in the same transaction).",
  role: "The role (etl.roles.role).",
  scope: "Its scope (etl.roles.scope).",
  from_column: "The column before; null when there was none.",
  to_column: "The column after; null when the role is no longer resolved.",
  from_how: "How it was resolved before; null the first time.",
  to_how: "How it is resolved now.",
  summary: "The resolution's sentence, as etl.roles.summary.",
  run_id: "The run after which it was resolved (etl.runs.run_id); null for etl migrate.",
};

const BUILDS = {
  object: "A view of the analytics schema, or a function of the pipeline's, built from the roles.",
  definition_sha256: "The hash of the definition it was built from.",
  built_at: "When it was built.",
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table etl.roles (
      role text not null,
      scope text not null,
      table_name text not null,
      column_name text,
      field text,
      data_type text,
      how text not null
        check (how in ('configured', 'inferred', 'pending', 'absent', 'unresolved', 'ambiguous')),
      summary text not null,
      evidence jsonb not null,
      resolved_at timestamptz not null default now(),
      changed_at timestamptz not null default now(),
      primary key (role, scope)
    )`.execute(db);
  await commentOn(
    db,
    "etl.roles",
    "Which typed column carries each meaning the analytics views need, in each scope, how it was chosen and on what evidence. The views read these columns and no other field of the upstream's.",
    ROLES,
  );
  await sql`
    create table etl.role_changes (
      change_id bigint generated always as identity primary key,
      changed_at timestamptz not null default now(),
      role text not null,
      scope text not null,
      from_column text,
      to_column text,
      from_how text,
      to_how text not null,
      summary text not null,
      run_id text
    )`.execute(db);
  await commentOn(
    db,
    "etl.role_changes",
    "Every change of a role's column or of how it was resolved: events, as schema changes are. The views were rebuilt with it.",
    ROLE_CHANGES,
  );
  await sql`
    create table etl.analytics_builds (
      object text primary key,
      definition_sha256 text not null,
      built_at timestamptz not null default now()
    )`.execute(db);
  await commentOn(
    db,
    "etl.analytics_builds",
    "What the worker last built from the roles: an object is built again only when its definition changes.",
    BUILDS,
  );
  await sql`alter table etl.reading_checks add column missing text,
    alter column agree drop not null`.execute(db);
  await sql`comment on column etl.reading_checks.agree is ${sql.lit(
    "Whether the three readings are equal; null when one is missing (see missing): a check that lacks a reading claims nothing.",
  )}`.execute(db);
  await sql`comment on column etl.reading_checks.missing is ${sql.lit(
    "The readings missing and why (the list's units unresolved, an item without a whole number, no totals or chart held); null when all three are held.",
  )}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update etl.reading_checks set agree = false where agree is null`.execute(db);
  await sql`alter table etl.reading_checks drop column missing,
    alter column agree set not null`.execute(db);
  await sql`drop table etl.analytics_builds, etl.role_changes, etl.roles`.execute(db);
}
