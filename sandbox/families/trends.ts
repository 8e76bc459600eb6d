// What the trends' routes share: the parameters each takes, and the range they ask for.
import { SALE_TYPES, SELECTION_TYPES } from "../dataset/trends.js";
import { formatDay } from "../days.js";
import { ValidationError } from "../http/errors.js";
import { type Field, identifier, jsonObject, oneOf, optional, required } from "../http/params.js";

// Filters are checked for type like the upstream does, then ignored: the sandbox's sales are
// not broken down by them (a documented simplification).
const FILTERS = {
  product_id: optional(identifier, null),
  artist_id: optional(identifier, null),
  asset_id: optional(identifier, null),
  asset_ids: optional(jsonObject, null),
  territory_id: optional(identifier, null),
  dsp_id: optional(identifier, null),
};
export const selection_type = required(oneOf(SELECTION_TYPES));
export const sale_type = required(oneOf(SALE_TYPES));

/** The fields every trends operation takes; `dates` is the operation's date format. */
export function rangeFields(dates: Field<number>) {
  return { start_date: required(dates), end_date: required(dates), ...FILTERS };
}

/** The range as YYYY-MM-DD days (inclusive), refused when it ends before it starts. */
export function range(params: { start_date: number; end_date: number }) {
  if (params.end_date < params.start_date) {
    throw new ValidationError({
      end_date: ["The end_date field must be a date after or equal to start_date."],
    });
  }
  return { start: formatDay(params.start_date), end: formatDay(params.end_date) };
}
