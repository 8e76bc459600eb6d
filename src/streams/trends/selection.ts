import { SALE_TYPES, SELECTION_TYPES, type SaleType, type SelectionType } from "../../api/enums.js";
import { product } from "../dimensions.js";
import type { Partition } from "../partition.js";

/** One day of one selection type. */
export interface SelectionDay extends Partition {
  readonly day: string;
  readonly selectionType: SelectionType;
}

/** One day of one selection type and sale type. */
export interface SaleDay extends SelectionDay {
  readonly saleType: SaleType;
}

/** Days × selection types: "2026-01-05|dsp". */
export function selectionDays(days: readonly string[]): Iterable<SelectionDay> {
  return product({ day: days, selectionType: SELECTION_TYPES });
}

/** Days × selection types × sale types: "2026-01-05|dsp|stream". */
export function saleDays(days: readonly string[]): Iterable<SaleDay> {
  return product({ day: days, selectionType: SELECTION_TYPES, saleType: SALE_TYPES });
}

/** A sale day as the list and chart operations ask for it: date-times spanning the whole day. */
export function saleDayParams({ day, selectionType, saleType }: SaleDay) {
  return {
    selection_type: selectionType,
    sale_type: saleType,
    start_date: `${day}T00:00:00`,
    end_date: `${day}T23:59:59`,
  };
}

/** The rows of a sale day: what replace mode scopes its deletions to. */
export function saleDayScope(partition: SaleDay) {
  return {
    day: partition.day,
    selection_type: partition.selectionType,
    sale_type: partition.saleType,
  };
}
