import { type Kysely, sql } from "kysely";

/** A view as it stood: enough to make it again the same, for the same readers. */
interface SetAside {
  readonly name: string;
  readonly definition: string;
  readonly comment: string | null;
  readonly columns: readonly { readonly column: string; readonly comment: string }[];
  readonly grants: readonly { readonly grantee: string; readonly privilege: string }[];
}

/**
 * The views that read `column` of `table`, and the views over those, in the order they were made
 * (a view after those it reads).
 */
async function viewsReading(db: Kysely<unknown>, table: string, column: string) {
  const { rows } = await sql<{ oid: number; name: string }>`
    with recursive readers(oid, depth) as (
      select r.ev_class, 1
        from pg_depend d
        join pg_rewrite r on r.oid = d.objid
        join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
       where d.classid = 'pg_rewrite'::regclass and d.refobjid = ${table}::regclass
         and a.attname = ${column} and r.ev_class <> d.refobjid
      union all
      select r.ev_class, readers.depth + 1
        from readers
        join pg_depend d on d.refobjid = readers.oid and d.classid = 'pg_rewrite'::regclass
        join pg_rewrite r on r.oid = d.objid
       where r.ev_class <> readers.oid)
    select c.oid::integer as oid, format('%I.%I', n.nspname, c.relname) as name
      from (select oid, max(depth) as depth from readers group by oid) v
      join pg_class c on c.oid = v.oid
      join pg_namespace n on n.oid = c.relnamespace
     order by v.depth, c.oid`.execute(db);
  return rows;
}

async function setAside(db: Kysely<unknown>, oid: number, name: string): Promise<SetAside> {
  const { rows } = await sql<{ definition: string; comment: string | null }>`
    select pg_get_viewdef(${oid}::oid) as definition,
           obj_description(${oid}::oid, 'pg_class') as comment`.execute(db);
  const { rows: columns } = await sql<{ column: string; comment: string }>`
    select a.attname as column, d.description as comment
      from pg_description d
      join pg_attribute a on a.attrelid = d.objoid and a.attnum = d.objsubid
     where d.objoid = ${oid}::oid and d.objsubid > 0`.execute(db);
  const { rows: grants } = await sql<{ grantee: string; privilege: string }>`
    select case when g.grantee = 0 then 'public' else quote_ident(r.rolname) end as grantee,
           g.privilege_type as privilege
      from pg_class c, aclexplode(c.relacl) g
      left join pg_roles r on r.oid = g.grantee
     where c.oid = ${oid}::oid and g.grantee <> c.relowner`.execute(db);
  return {
    name,
    definition: rows[0]?.definition ?? "",
    comment: rows[0]?.comment ?? null,
    columns,
    grants,
  };
}

async function makeAgain(db: Kysely<unknown>, view: SetAside): Promise<void> {
  const name = sql.raw(view.name);
  await sql`create view ${name} as ${sql.raw(view.definition.replace(/;\s*$/, ""))}`.execute(db);
  if (view.comment !== null) {
    await sql`comment on view ${name} is ${sql.lit(view.comment)}`.execute(db);
  }
  for (const { column, comment } of view.columns) {
    await sql`comment on column ${name}.${sql.ref(column)} is ${sql.lit(comment)}`.execute(db);
  }
}

async function grantAgain(db: Kysely<unknown>, view: SetAside): Promise<void> {
  for (const { grantee, privilege } of view.grants) {
    await sql`grant ${sql.raw(privilege)} on ${sql.raw(view.name)} to ${sql.raw(grantee)}`.execute(
      db,
    );
  }
}

/**
 * Runs `change` (a column's type altered) with the views that read the column set aside: Postgres
 * alters no column a view reads, so each is dropped and, once the change is made, made again, in
 * the caller's transaction. `remake` first builds again those whose definition depends on the
 * column's type (the analytics views, from their roles); every other is made as it was, with its
 * comments; each gets its readers' grants back. A reader sees the views before the change or
 * after it, never without them.
 */
export async function withViewsSetAside<T>(
  db: Kysely<unknown>,
  table: string,
  column: string,
  change: () => Promise<T>,
  remake?: (trx: Kysely<unknown>) => Promise<void>,
): Promise<T> {
  const readers = await viewsReading(db, table, column);
  const views = await Promise.all(readers.map((r) => setAside(db, r.oid, r.name)));
  for (const view of [...views].reverse()) {
    await sql`drop view ${sql.raw(view.name)}`.execute(db);
  }
  const result = await change();
  if (views.length > 0) await remake?.(db);
  for (const view of views) {
    const { rows } = await sql<{ exists: boolean }>`
      select to_regclass(${view.name}) is not null as exists`.execute(db);
    if (!rows[0]?.exists) await makeAgain(db, view);
    await grantAgain(db, view);
  }
  return result;
}
