import { type Kysely, sql } from "kysely";

/**
 * The row-level trigger function of the history's first form (migration 026), which migration 030
 * replaced by one per statement and recreates when undone. Migrations import this helper, so its
 * behaviour is frozen: never change it.
 */
export async function createKeepVersionPerRow(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function history.keep_version() returns trigger language plpgsql as $$
    declare
      before_values jsonb;
      after_values jsonb;
      changed jsonb;
      row_key jsonb := '{}';
      name text;
    begin
      -- A version begins when the writer moves synced_at: an update that leaves it (a column
      -- filled from raw, a replay deriving again what was received) starts none.
      if tg_op = 'UPDATE' and new.synced_at is not distinct from old.synced_at then
        return new;
      end if;
      if current_setting('music_etl.history', true) = 'off'
         or (tg_op = 'DELETE' and current_setting('music_etl.replaying', true) = 'on') then
        if tg_op = 'DELETE' then return old; end if;
        return new;
      end if;
      before_values := to_jsonb(old) - 'raw' - 'synced_at';
      if tg_op = 'UPDATE' then
        after_values := to_jsonb(new) - 'raw' - 'synced_at';
        select coalesce(jsonb_object_agg(a.key, a.value), '{}') into changed
          from jsonb_each(after_values) a
         where a.value is distinct from before_values -> a.key;
      end if;
      foreach name in array tg_argv loop
        row_key := row_key || jsonb_build_object(name, before_values -> name);
      end loop;
      -- An update's version ends where the next begins (its synced_at), so that as_of finds one.
      insert into history.row_versions
        (table_name, key, old_values, new_values, valid_from, seen_at, attempt_id)
      values (tg_table_schema || '.' || tg_table_name, row_key, before_values, changed,
              old.synced_at,
              case when tg_op = 'UPDATE' then new.synced_at else now() end,
              nullif(current_setting('music_etl.attempt', true), '')::bigint);
      if tg_op = 'DELETE' then return old; end if;
      return new;
    end
    $$`.execute(db);
}
