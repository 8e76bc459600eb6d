import { type JsonRecord, toMoney, toText } from "../../api/extract.js";
import { defineStream, type Partition } from "../stream.js";
import { stableKey } from "./stable-key.js";
import { monthStart, toInstant } from "../typed-values.js";
import { WHOLE_LIST } from "./whole-list.js";

/** The upstream id as text, or a hash of the whole record when it has none. */
export function incomeKey(income: JsonRecord): string {
  return toText(income.id) ?? stableKey(income);
}

/** Royalty incomes (the upstream lists about the last 12 closed months, unpaged). */
export const incomes = defineStream<Partition, JsonRecord>({
  name: "incomes",
  family: "royalties",
  partitions: () => WHOLE_LIST,
  fetch: async ({ api, call }) => ({
    records: (await api.royalties.listIncomes({}, call)).records,
    next: null,
  }),
  outputs: [
    {
      target: {
        table: "royalties.incomes",
        key: ["income_key"],
        columns: [
          "period",
          "period_start",
          "source",
          "dsp_name",
          "territory_code",
          "amount",
          "currency",
          "created_at",
          "raw",
        ],
      },
      mode: "upsert",
      rows: (income) => [
        {
          income_key: incomeKey(income),
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
