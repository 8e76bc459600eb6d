// How values are written in a body (the shapes knobs booleans, datetimes and phpEmpty): the same
// values, in the encodings PHP upstreams use. Applied to every 2xx body before drift.
import type { ShapeKnobs } from "./interfaces.js";
import { hash32 } from "./prng.js";

/** An ISO instant as the sandbox writes them: with or without zone and milliseconds. */
const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z?$/;

/** true as 1, "1" or "true" (false as 0, "0", "false"), by the hash of the value's record. */
function mixedBoolean(value: boolean, record: number): unknown {
  switch (record % 3) {
    case 0:
      return value ? 1 : 0;
    case 1:
      return value ? "1" : "0";
    default:
      return String(value);
  }
}

/**
 * "2026-01-05 10:00:00" for an ISO instant, with ".SSS" on about half of them (always when the
 * instant has a fraction, so no value changes). Anything else is returned as it is.
 */
function sqlDatetime(text: string, record: number): string {
  const match = ISO_INSTANT.exec(text);
  if (!match) return text;
  const [, day, time, fraction = ""] = match;
  const exact = /^(\.0*)?$/.test(fraction) ? "" : fraction;
  const shown = exact || (record % 2 === 0 ? ".000" : "");
  return `${day} ${time}${shown}`;
}

const isEmptyObject = (value: unknown) =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 0;

/** Whether any encoding knob is set: the body is then walked once. */
export function changesEncoding(shapes: ShapeKnobs): boolean {
  return shapes.booleans !== "json" || shapes.datetimes !== "iso" || shapes.phpEmpty;
}

/**
 * The body with booleans, instants and empty objects written as the knobs say. Deterministic:
 * a value's form depends on its field and on the record holding it, never on where the record
 * sits in a body, so one record is written the same in every answer that holds it (a payout in
 * /payouts and in /payouts/pending, a product found by two look-ups). The royalties envelope's
 * `status: true` stays a boolean: it is the envelope, not data, and PHP sends it as written.
 */
export function encodeBody(body: unknown, shapes: ShapeKnobs): unknown {
  if (!changesEncoding(shapes)) return body;
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== "object" || value === null) return value;
    if (shapes.phpEmpty && isEmptyObject(value)) return [];
    let record: string | undefined;
    const hashOf = (key: string) => hash32(key, (record ??= JSON.stringify(value)));
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, encodeField(key, child, hashOf)]),
    );
  };
  const encodeField = (key: string, value: unknown, hashOf: (key: string) => number) => {
    if (typeof value === "boolean" && shapes.booleans === "mixed" && key !== "status") {
      return mixedBoolean(value, hashOf(key));
    }
    if (typeof value === "string" && shapes.datetimes === "sql" && ISO_INSTANT.test(value)) {
      return sqlDatetime(value, hashOf(key));
    }
    return visit(value);
  };
  return visit(body);
}
