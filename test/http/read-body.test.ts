import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBody } from "../../src/http/read-body.js";

// A body is read as its bytes, within the limit; decoding them is body-charset.ts's.

const read = async (chunks: readonly Buffer[], declared: number | null = null) => {
  const result = await readBody(Readable.from(chunks), 1 << 20, declared);
  if (!("bytes" in result)) throw new Error("refused");
  return result.bytes;
};

describe("a body read", () => {
  it("is kept as received, in one buffer when its length is declared", async () => {
    const body = Buffer.from('{"name": "日本語 ünïcode"}');
    const halves = [body.subarray(0, 13), body.subarray(13)];
    expect(await read(halves, body.length)).toEqual(body);
    expect(await read(halves)).toEqual(body);
  });
});
