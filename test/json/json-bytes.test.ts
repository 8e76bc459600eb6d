import { describe, expect, it, vi } from "vitest";
import { DeepJson, JsonDecimal, MAX_JSON_DEPTH, parseJsonBody } from "../../src/json/json-body.js";
import { PIECE_BYTES, parseJsonBytes } from "../../src/json/json-bytes.js";

// A body parsed from its bytes a piece at a time reads exactly as the whole text parsed at once,
// refuses what JSON.parse refuses, and never decodes more than a piece of a large body.

/** Records that together pass PIECE_BYTES several times over, with every awkward kind of value. */
function records(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) =>
      `{"id": ${i}, "name": "日本語 \\"[{\\" ${i} }]\\\\", "amount": 12.3400, "big": 123456789012345678901234567890,` +
      ` "tiny": 1e-400, "flag": ${i % 2 === 0}, "none": null, "__proto__": {"polluted": ${i}},` +
      ` "tags": ["a", "b\\u0000"], "nested": {"deeper": [1, [2, [3]]]}}`,
  );
}

const LARGE = Math.ceil((3 * PIECE_BYTES) / (records(1)[0] ?? "").length);
const LIST = `[${records(LARGE).join(",")}]`;
const ENVELOPE = ` \n{"status": true, "data": {"data": [${records(LARGE).join(", ")}], "total": ${LARGE}}, "links": {"next": null}}\n `;
const TOO_DEEP = `${"[".repeat(MAX_JSON_DEPTH + 10)}${records(LARGE).join(",")}${"]".repeat(MAX_JSON_DEPTH + 10)}`;

const bodies: Record<string, string> = {
  "a small object": '{"status": true, "data": [1, 2.50, "x"]}',
  "a large list": LIST,
  "a large envelope": ENVELOPE,
  "a large object of large lists": `{"a": [${records(LARGE).join(",")}], "b": [${records(LARGE).join(",")}], "a": []}`,
  "a large list of scalars": `[${Array.from({ length: 200_000 }, (_, i) => (i % 3 === 0 ? `"s${i}"` : i % 3 === 1 ? `${i}.10` : "true")).join(" , ")}]`,
  "an empty body": "  ",
  "a scalar": " 12345678901234567890 ",
  "a large list nested past the warehouse's depth": TOO_DEEP,
};

describe("a body parsed from its bytes", () => {
  it.each(Object.entries(bodies))("reads %s exactly as its whole text", (_name, text) => {
    const expected = parseJsonBody(text);
    const parsed = parseJsonBytes(Buffer.from(text));
    expect(parsed).toEqual(expected);
    // toEqual sees no difference between a key named __proto__ and a prototype: keys must match.
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(expected));
  });

  it("keeps numbers as sent and deep parts as text inside a large body", () => {
    const parsed = parseJsonBytes(Buffer.from(LIST)) as Record<string, unknown>[];
    expect(parsed[3]?.amount).toEqual(new JsonDecimal("12.3400"));
    expect(parsed[3]?.big).toEqual(new JsonDecimal("123456789012345678901234567890"));
    expect(Object.getPrototypeOf(parsed[3])).toBe(Object.prototype);
    expect(Object.keys(parsed[3] ?? {})).toContain("__proto__");
    let node: unknown = parseJsonBytes(Buffer.from(TOO_DEEP));
    for (let depth = 1; depth <= MAX_JSON_DEPTH; depth += 1) node = (node as unknown[])[0];
    expect(node).toBeInstanceOf(DeepJson);
  });

  it("never decodes more than a piece of a large body at once", () => {
    const bytes = Buffer.from(ENVELOPE);
    const decode = vi.spyOn(bytes, "toString");
    parseJsonBytes(bytes);
    const lengths = decode.mock.calls.map(([, start = 0, end = bytes.length]) => end - start);
    expect(lengths.length).toBeGreaterThan(LARGE);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(PIECE_BYTES);
  });

  it.each([
    ["a missing comma", (list: string) => list.replace("}, {", "} {")],
    ["a trailing comma", (list: string) => `${list.slice(0, -1)},]`],
    ["a missing bracket", (list: string) => list.slice(0, -1)],
    ["a wrong bracket", (list: string) => `${list.slice(0, -1)}}`],
    ["trailing text", (list: string) => `${list} x`],
    ["an unterminated string", (list: string) => `${list.slice(0, -2)}"]`],
    ["a bad value in one record", (list: string) => list.replace('"none": null', '"none": nul')],
    ["a key that is not a string", (list: string) => `{1: ${list}}`],
    ["an object without a colon", (list: string) => `{"a" ${list}}`],
  ])("refuses %s as JSON.parse does", (_name, spoil) => {
    const text = spoil(`[${records(LARGE).join(", ")}]`);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => parseJsonBytes(Buffer.from(text))).toThrow(SyntaxError);
  });
});
