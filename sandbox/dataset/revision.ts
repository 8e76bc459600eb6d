// Late data and restatements: what `shapes.revision` ≥ 1 changes in the dataset. Every change is
// a pure function of (seed, revision), so the same revision always serves the same values, and
// revision 0 is the dataset as generated.
import { formatDay } from "../days.js";
import { hash32 } from "../prng.js";
import type { SaleType, SelectionType } from "./records.js";

/** Days of late sales: the 3 days before today, or the last 3 days with sales before it. */
const LATE_DAYS = 3;
/** About one income in RESTATED_ONE_IN has its amount restated. */
const RESTATED_ONE_IN = 8;

/** What the current revision changes against revision 0 (empty at revision 0). */
export interface RevisionChanges {
  revision: number;
  /** YYYY-MM-DD days on which every trends count (all selection and sale types) grew. */
  trendDays: string[];
  /** Ids of the incomes served with a restated amount (same id, period, dsp, created_at…). */
  restatedIncomeIds: number[];
  /** The generated payout served as paid instead of pending; null when none is. */
  paidPayoutId: string | null;
}

/**
 * Day numbers whose sales arrive late: the LATE_DAYS days before `today`, moved back to the last
 * days with sales when `today` is past them, so a revision always changes something.
 */
export function lateSalesDays(firstDay: number, lastDay: number, today: number): number[] {
  const end = Math.min(today - 1, lastDay);
  const days: number[] = [];
  for (let day = Math.max(firstDay, end - LATE_DAYS + 1); day <= end; day++) days.push(day);
  return days;
}

/** A count once late sales have arrived: 2–10 % more per revision, at least 1 more. */
export function lateSalesCount(
  seed: number,
  day: number,
  type: SelectionType,
  sale: SaleType,
  id: number | string,
  count: number,
  revision: number,
): number {
  if (revision <= 0) return count;
  const share = 0.02 + 0.08 * (hash32(seed, "late-sales", day, type, sale, String(id)) / 2 ** 32);
  return count + Math.max(1, Math.round(count * share * revision));
}

/** Indices of the incomes whose amount a revision restates (at least one when there are any). */
export function restatedIncomeIndices(seed: number, count: number): number[] {
  const indices: number[] = [];
  for (let i = 0; i < count; i++) {
    if (hash32(seed, "restated-income", i) % RESTATED_ONE_IN === 0) indices.push(i);
  }
  if (indices.length === 0 && count > 0) indices.push(count - 1);
  return indices;
}

/** A restated amount in cents: up or down by 2–15 % per revision, never the original, never ≤ 0. */
export function restatedCents(seed: number, index: number, cents: number, revision: number) {
  if (revision <= 0) return cents;
  const hash = hash32(seed, "restated-amount", index);
  const step = Math.max(1, Math.round(cents * (0.02 + 0.13 * ((hash >>> 1) / 2 ** 31))));
  const restated = hash % 2 === 0 ? cents + revision * step : cents - revision * step;
  return restated > 0 ? restated : cents + revision * step;
}

export function formatDays(days: readonly number[]): string[] {
  return days.map(formatDay);
}
