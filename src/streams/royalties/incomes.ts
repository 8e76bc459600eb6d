import { type JsonRecord, toMoney, toText, monthStart, toInstant } from "../../api/read-values.js";
import { listIncomes } from "../../api/operations/royalties.js";
import { listRead, single } from "../list-read.js";
import type { BodyCursor } from "../paging.js";
import { defineStream, type Partition } from "../stream.js";
import { stableKey } from "../stable-key.js";
import { bodyPaging } from "./body-paged.js";
import { WHOLE_LIST } from "./whole-list.js";

/** An income and its key in the table. */
interface KeyedIncome {
  readonly income: JsonRecord;
  readonly key: string;
}

/**
 * The upstream id as text; without one, a hash of the whole record and how many equal records
 * came before it in the page (two equal lines are two incomes). A restated income without an id
 * gets a new key: the list replaces its months (see the output's mode), so it never adds up twice.
 */
export function keyIncomes(incomes: readonly JsonRecord[]): KeyedIncome[] {
  const seen = new Map<string, number>();
  return incomes.map((income) => {
    const id = toText(income.id);
    if (id !== null) return { income, key: id };
    const hash = stableKey(income);
    const occurrence = seen.get(hash) ?? 0;
    seen.set(hash, occurrence + 1);
    return { income, key: occurrence === 0 ? hash : `${hash}:${occurrence}` };
  });
}

/** Royalty incomes (the upstream lists about the last 12 closed months), paged as its body says. */
export const incomes = defineStream<Partition, KeyedIncome, BodyCursor>({
  name: "incomes",
  family: "royalties",
  paging: bodyPaging,
  partitions: () => WHOLE_LIST,
  fetch: async (context, _partition, cursor) => [
    await bodyPaging.fetch(context, listIncomes, cursor),
  ],
  read: (exchanges, _partition, _cursor, context) => {
    const page = listIncomes.parse(single(exchanges).body);
    const records = keyIncomes(page.records);
    return listRead({ ...page, records }, context, bodyPaging.next(page.list, context));
  },
  outputs: [
    {
      target: {
        table: "royalties.incomes",
        key: ["income_key"],
      },
      // The list covers some months (about the last 12): it replaces what was stored for those
      // months, so an income restated or withdrawn upstream is not kept beside its new form, and
      // older months stay.
      mode: "replace",
      replaceWithin: ["period_start"],
      rows: ({ income, key }) => [
        {
          income_key: key,
          period: toText(income.period),
          period_start: monthStart(income.period),
          source: toText(income.source),
          dsp_name: toText(income.dsp),
          territory_code: toText(income.territory),
          amount: toMoney(income.amount),
          currency: toText(income.currency),
          created_at: toInstant(income.created_at),
          raw: income,
        },
      ],
    },
  ],
});
