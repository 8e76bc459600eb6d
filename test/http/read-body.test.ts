import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBody } from "../../src/http/read-body.js";

// The bytes a body is kept as are what the text undici would decode holds, as UTF-8: the rest of
// the program lands and parses them without ever decoding the whole body again.

const read = async (chunks: readonly Buffer[], declared: number | null = null) => {
  const result = await readBody(Readable.from(chunks), 1 << 20, declared);
  if (!("bytes" in result)) throw new Error("refused");
  return result.bytes;
};

describe("a body read", () => {
  it("is kept as received when it is UTF-8, in one buffer when its length is declared", async () => {
    const body = Buffer.from('{"name": "日本語 ünïcode"}');
    const halves = [body.subarray(0, 13), body.subarray(13)];
    expect(await read(halves, body.length)).toEqual(body);
    expect(await read(halves)).toEqual(body);
  });

  it("skips a byte-order mark", async () => {
    const body = Buffer.from('{"a": 1}');
    expect(await read([Buffer.from([0xef, 0xbb, 0xbf]), body])).toEqual(body);
  });

  it("replaces an invalid UTF-8 sequence as decoding does", async () => {
    const body = Buffer.concat([
      Buffer.from('{"a": "x'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from('y"}'),
    ]);
    const bytes = await read([body], body.length);
    expect(bytes.toString()).toBe(body.toString());
    expect(bytes.toString()).toBe('{"a": "x\uFFFD\uFFFDy"}');
  });
});
