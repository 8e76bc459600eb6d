import { parseText, toText } from "../../api/read-values.js";
import { type JsonRecord } from "../../json/json-record.js";
import { API_PREFIX, defineOperation } from "../../api/operation.js";
import { type RecordList, toRecordList } from "../../api/results.js";
import { endpointStream } from "../endpoint-stream.js";
import { NEXT_LINK_PAGING } from "../paging.js";
import { listRecords } from "../record-selectors.js";
import { stableKey } from "../stable-key.js";
import { LIST_PARAMS, WHOLE_LIST } from "./whole-list.js";

export const listIncomesOperation = defineOperation({
  name: "royalties.listIncomes",
  params: LIST_PARAMS,
  request: (query) => ({ method: "GET", path: `${API_PREFIX}/incomes`, query }),
  parse: (body): RecordList => toRecordList(body),
});

/** An income as received (what untyped values are named within) and its key in the table. */
interface KeyedIncome {
  readonly raw: JsonRecord;
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
    if (id !== null) return { raw: income, key: id };
    const hash = stableKey(income);
    const occurrence = seen.get(hash) ?? 0;
    seen.set(hash, occurrence + 1);
    return { raw: income, key: occurrence === 0 ? hash : `${hash}:${occurrence}` };
  });
}

/** A month as texts name one: 2026-03, or a day of it (2026-03-01). */
const MONTH = /^(\d{4}-(?:0[1-9]|1[0-2]))(?:-\d{2})?$/;
/** A field whose name says it is the income's month rather than a day something happened. */
const MONTH_NAME = /period|month/i;

/**
 * The month an income is for, which scopes what a list replaces. The spec shows no field of an
 * income, so it is looked for by value: `period` when it holds a month, else the first field
 * holding a month (2026-03), else the first field named for a period or month holding a day of
 * one. None found: null, a scope of its own (see the output's mode).
 */
export function incomeMonth(income: JsonRecord): string | null {
  const months = Object.entries(income).flatMap(([name, value]) => {
    const match = MONTH.exec(parseText(value) ?? "");
    return match ? [{ name, month: match[1] as string, day: match[0] !== match[1] }] : [];
  });
  const chosen =
    months.find(({ name }) => name === "period") ??
    months.find(({ day }) => !day) ??
    months.find(({ name }) => MONTH_NAME.test(name));
  return chosen ? `${chosen.month}-01` : null;
}

/**
 * Royalty incomes (the upstream lists about the last 12 closed months), paged as its body says.
 * The spec shows none of an income's fields: its columns but the key and month are discovered.
 */
export const incomes = endpointStream({
  name: "incomes",
  family: "royalties",
  partitions: WHOLE_LIST,
  operation: listIncomesOperation,
  params: () => ({}),
  paging: NEXT_LINK_PAGING,
  // The key of an income without an id counts the equal ones before it in the page.
  records: (page) => {
    const read = listRecords(page);
    return { ...read, records: keyIncomes(read.records) };
  },
  raw: ({ raw }) => raw,
  table: "royalties.incomes",
  key: ["income_key"],
  // The list covers some months (about the last 12): it replaces what was stored for those
  // months, so an income restated or withdrawn upstream is not kept beside its new form, and
  // older months stay.
  mode: { replaceWithin: ["period_start"] },
  columns: ({ raw: income, key }) => ({
    income_key: key,
    period_start: incomeMonth(income),
  }),
});
