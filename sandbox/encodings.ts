// How values are written in a body (the shapes knobs booleans, datetimes and phpEmpty): the same
// values, in the encodings PHP upstreams use. Applied to every 2xx body before drift.
import type { ShapeKnobs } from "./interfaces.js";
import { hash32 } from "./prng.js";

/** An ISO instant as the sandbox writes them: with or without zone and milliseconds. */
const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z?$/;

/** true as 1, "1" or "true" (false as 0, "0", "false"), by a hash of its place in the body. */
function mixedBoolean(value: boolean, place: number): unknown {
  switch (hash32("boolean", place) % 3) {
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
function sqlDatetime(text: string, place: number): string {
  const match = ISO_INSTANT.exec(text);
  if (!match) return text;
  const [, day, time, fraction = ""] = match;
  const exact = /^(\.0*)?$/.test(fraction) ? "" : fraction;
  const shown = exact || (hash32("datetime", place) % 2 === 0 ? ".000" : "");
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
 * each value's form depends on its place in the body. The royalties envelope's `status: true`
 * stays a boolean: it is the envelope, not data, and PHP sends it as written.
 */
export function encodeBody(body: unknown, shapes: ShapeKnobs): unknown {
  if (!changesEncoding(shapes)) return body;
  let place = 0;
  const visit = (value: unknown, key: string | null): unknown => {
    if (Array.isArray(value)) return value.map((item) => visit(item, null));
    if (typeof value === "object" && value !== null) {
      if (shapes.phpEmpty && isEmptyObject(value)) return [];
      return Object.fromEntries(Object.entries(value).map(([k, child]) => [k, visit(child, k)]));
    }
    if (typeof value === "boolean" && shapes.booleans === "mixed" && key !== "status") {
      return mixedBoolean(value, place++);
    }
    if (typeof value === "string" && shapes.datetimes === "sql") return sqlDatetime(value, place++);
    return value;
  };
  return visit(body, null);
}
