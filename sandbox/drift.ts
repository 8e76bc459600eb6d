import type { DriftKnobs } from "./interfaces.js";
import { hash32 } from "./prng.js";

// Paging envelope fields stay numbers under numbersAsStrings: the drift being simulated is in
// the records (e.g. a stat value sent as "2960"), and a client must still be able to page.
// The last five are the paged royalties shapes' (shapes.royaltiesPaging).
const ENVELOPE_FIELDS = new Set([
  "page",
  "page_size",
  "total",
  "length",
  "current_page",
  "last_page",
  "per_page",
  "from",
  "to",
]);
// Optional fields, and some counts, that a drifting upstream starts sending as null.
const NULLABLE_FIELDS = new Set([
  "title",
  "label",
  "release_date",
  "duration",
  "proprietary_id",
  "code",
  "state",
  "count",
  "percentage",
  "value",
  "daily_diff",
  "engagement_rate",
  "followers",
  "position",
  "pre_rank",
  "method",
  "reference",
  "notes",
  "source",
  "territory",
  "stream_percentage",
  "download_percentage",
]);
// Measures and dates that a drifting upstream starts sending in forms no reader can type.
const MALFORMED_FIELDS = new Set([
  "count",
  "percentage",
  "value",
  "followers",
  "amount",
  "release_date",
  "created_at",
]);
const RENAMED_VALUES: Record<string, Record<string, string>> = { status: { paid: "completed" } };
const RENAMED_KEYS: Record<string, string> = { listeners: "monthly_listeners" };

/** A value as an upstream with another locale, or a placeholder for "unknown", would send it. */
function malformedForm(value: unknown): string {
  const text = String(value);
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (day) return `${day[3]}/${day[2]}/${day[1]}`;
  return /^-?\d+\.\d+$/.test(text) ? text.replace(".", ",") : "n/a";
}

/** The body as a drifting upstream would send it. Deterministic: the same body drifts the same. */
export function applyDrift(body: unknown, drift: DriftKnobs): unknown {
  if (!Object.values(drift).some(Boolean)) return body;
  let nullables = 0;
  let malformable = 0;
  const visit = (value: unknown, key: string | null): unknown => {
    if (Array.isArray(value)) return value.map((item) => visit(item, key));
    if (typeof value === "object" && value !== null) {
      const result: Record<string, unknown> = {};
      for (const [field, child] of Object.entries(value)) {
        const name = drift.renamedEnum ? (RENAMED_KEYS[field] ?? field) : field;
        // About one occurrence in three, spread by a hash so no field is always or never hit.
        const nulled =
          drift.nulls && NULLABLE_FIELDS.has(field) && hash32("null", nullables++) % 3 === 0;
        const garbled =
          drift.malformed &&
          MALFORMED_FIELDS.has(field) &&
          child !== null &&
          hash32("malformed", malformable++) % 4 === 0;
        result[name] = nulled ? null : garbled ? malformedForm(child) : visit(child, field);
      }
      if (drift.extraFields) {
        result.x_unexpected = "added by a newer upstream";
        result.x_flags = { beta: true };
      }
      return result;
    }
    if (typeof value === "number" && drift.numbersAsStrings && !(key && ENVELOPE_FIELDS.has(key))) {
      return String(value);
    }
    if (typeof value === "string" && drift.renamedEnum && key)
      return RENAMED_VALUES[key]?.[value] ?? value;
    return value;
  };
  return visit(body, null);
}
