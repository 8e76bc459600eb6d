import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

/** What is known of one operation's page sizes. */
export interface PageSizeFacts {
  readonly operation: string;
  readonly cap: number | null;
  readonly ending: number | null;
}

type Db = Kysely<Database>;

/** The page sizes learned by earlier runs. */
export async function loadPageSizes(db: Db): Promise<PageSizeFacts[]> {
  return db.selectFrom("etl.page_sizes").select(["operation", "cap", "ending"]).execute();
}

/** Keeps what a run learned; a larger cap or ending wins over a smaller one stored. */
export async function savePageSizes(db: Db, facts: readonly PageSizeFacts[]): Promise<void> {
  if (facts.length === 0) return;
  await db
    .insertInto("etl.page_sizes")
    .values(facts.map((f) => ({ operation: f.operation, cap: f.cap, ending: f.ending })))
    .onConflict((oc) =>
      oc.column("operation").doUpdateSet((eb) => ({
        cap: eb.fn("greatest", [eb.ref("etl.page_sizes.cap"), eb.ref("excluded.cap")]),
        ending: eb.fn("greatest", [eb.ref("etl.page_sizes.ending"), eb.ref("excluded.ending")]),
        learned_at: eb.fn("now"),
      })),
    )
    .execute();
}
