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
// Where hostile values go: texts that get a NUL or half a surrogate pair, measures that get a
// number no integer column holds, ranks beyond a 32-bit integer, and ids (a key: the record
// cannot be stored without it).
const HOSTILE_TEXT_FIELDS = new Set(["name", "title", "notes", "item_name", "playlist_name"]);
const HOSTILE_NUMBER_FIELDS = new Set(["count", "value", "followers"]);
const HOSTILE_RANK_FIELDS = new Set(["rank", "peak_rank"]);
/**
 * Stand for what JSON.stringify cannot write (an integer a double cannot hold; a 10,000-deep
 * nesting, which overflows its stack) until the body is written as text.
 */
const digitsMark = (digits: string) => `\u0001hostile-digits:${digits}\u0001`;
const DIGITS_MARKED = /"\\u0001hostile-digits:(\d+)\\u0001"/g;
const NESTED_MARK = "\u0001hostile-nesting\u0001";
export const HUGE_INTEGER = "123456789012345678901234567890";
/** How deep the nested part some records get goes. */
export const HOSTILE_DEPTH = 10_000;
const NESTED_TEXT = `${"[".repeat(HOSTILE_DEPTH)}1${"]".repeat(HOSTILE_DEPTH)}`;

/** A 30-digit id of its own for each id: ids stay distinct, as an upstream's would. */
const hugeId = (id: unknown) => `${"9".repeat(20)}${String(id).padStart(10, "0").slice(-10)}`;

/** A value no Postgres column of its kind holds, for the field `field` (or null: left alone). */
function hostileValue(field: string, value: unknown, n: number): unknown {
  if (HOSTILE_TEXT_FIELDS.has(field) && typeof value === "string" && n % 5 === 0) {
    return n % 2 === 0 ? `${value}\u0000` : `${value}\ud800`;
  }
  if (HOSTILE_NUMBER_FIELDS.has(field) && typeof value === "number" && n % 6 === 0) {
    return digitsMark(HUGE_INTEGER);
  }
  if (HOSTILE_RANK_FIELDS.has(field) && typeof value === "number" && n % 4 === 0) {
    return 3_000_000_000;
  }
  if (field === "id" && n % 25 === 0) {
    return typeof value === "string" ? `${value}\u0000` : digitsMark(hugeId(value));
  }
  return null;
}

/** A body's text as sent, with what the hostile drift marked written out. */
export function driftedText(body: unknown): string {
  const text = JSON.stringify(body);
  if (!text.includes("\\u0001hostile")) return text;
  return text.replace(DIGITS_MARKED, "$1").replaceAll(JSON.stringify(NESTED_MARK), NESTED_TEXT);
}

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
  let hostiles = 0;
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
        const hostile = drift.hostile
          ? hostileValue(field, child, hash32("hostile", hostiles++))
          : null;
        result[name] =
          hostile ?? (nulled ? null : garbled ? malformedForm(child) : visit(child, field));
      }
      if (drift.hostile && "id" in value && hash32("nested", hostiles++) % 10 === 0) {
        result.x_nested = NESTED_MARK;
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
