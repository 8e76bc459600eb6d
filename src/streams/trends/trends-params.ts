// The parameters the three trends operations share: their filters, and a range in order.
import { z } from "zod";
import { SALE_TYPES, SELECTION_TYPES } from "../../api/enums.js";
import { identifier, localDateTime, nonEmptyText, oneOf } from "../../api/params.js";

/** Optional filters common to the three operations; numeric ids may go as JSON numbers. */
export const FILTERS = {
  product_id: identifier.optional(),
  artist_id: identifier.optional(),
  asset_id: identifier.optional(),
  asset_ids: z.record(z.string(), z.unknown(), "must be an object").optional(),
  territory_id: nonEmptyText.optional(),
  dsp_id: identifier.optional(),
};

export const ORDERED = { message: "must not be after end_date", path: ["start_date"] };

export function rangeInOrder(value: { start_date: string; end_date: string }): boolean {
  return value.start_date <= value.end_date;
}

export const selection_type = oneOf(SELECTION_TYPES);

/** List and chart: a sale type, and the range as date-times. */
export const SALE_RANGE = {
  selection_type,
  sale_type: oneOf(SALE_TYPES),
  start_date: localDateTime,
  end_date: localDateTime,
  ...FILTERS,
};
