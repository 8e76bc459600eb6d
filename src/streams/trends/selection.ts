import { SALE_TYPES, SELECTION_TYPES, type SaleType, type SelectionType } from "../../api/enums.js";
import type { Partition } from "../stream.js";

/** One day of one selection type. */
export interface SelectionDay extends Partition {
  readonly day: string;
  readonly selectionType: SelectionType;
}

/** One day of one selection type and sale type. */
export interface SaleDay extends SelectionDay {
  readonly saleType: SaleType;
}

export function selectionDays(days: readonly string[]): SelectionDay[] {
  return days.flatMap((day) =>
    SELECTION_TYPES.map((selectionType) => ({
      key: `${day}|${selectionType}`,
      day,
      selectionType,
    })),
  );
}

export function saleDays(days: readonly string[]): SaleDay[] {
  return selectionDays(days).flatMap((partition) =>
    SALE_TYPES.map((saleType) => ({ ...partition, key: `${partition.key}|${saleType}`, saleType })),
  );
}

/** The list and chart operations take date-times: the whole day. */
export function wholeDay(day: string) {
  return { start_date: `${day}T00:00:00`, end_date: `${day}T23:59:59` };
}

/** The rows of a sale day: what replace mode scopes its deletions to. */
export function saleDayScope(partition: SaleDay) {
  return {
    day: partition.day,
    selection_type: partition.selectionType,
    sale_type: partition.saleType,
  };
}
