import { SALE_TYPES, SELECTION_TYPES, type SaleType, type SelectionType } from "../../api/enums.js";
import { product } from "../dimensions.js";
import type { Partition } from "../partition.js";
import type { PartitionSet } from "../partition-set.js";

/** One day of one selection type. */
interface SelectionDay extends Partition {
  readonly day: string;
  readonly selectionType: SelectionType;
}

/** One day of one selection type and sale type. */
export interface SaleDay extends SelectionDay {
  readonly saleType: SaleType;
}

/** Days × selection types: "2026-01-05|dsp". */
export const SELECTION_DAYS: PartitionSet<SelectionDay> = {
  plan: ({ days }) => product({ day: days, selectionType: SELECTION_TYPES }),
  scope: ({ day, selectionType }) => ({ day, selection_type: selectionType }),
  daily: true,
};

/** Days × selection types × sale types: "2026-01-05|dsp|stream". */
export const SALE_DAYS: PartitionSet<SaleDay> = {
  plan: ({ days }) => product({ day: days, selectionType: SELECTION_TYPES, saleType: SALE_TYPES }),
  scope: ({ day, selectionType, saleType }) => ({
    day,
    selection_type: selectionType,
    sale_type: saleType,
  }),
  daily: true,
};

/** A sale day as the list and chart operations ask for it: date-times spanning the whole day. */
export function saleDayParams({ day, selectionType, saleType }: SaleDay) {
  return {
    selection_type: selectionType,
    sale_type: saleType,
    start_date: `${day}T00:00:00`,
    end_date: `${day}T23:59:59`,
  };
}
