import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BodyCharsetError } from "../../src/http/upstream-errors.js";
import { declaredCharset, decodeBody } from "../../src/http/body-charset.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import { getTerritoriesOperation } from "../../src/streams/catalogue/territories.js";

const bytesOf = (decoded: ReturnType<typeof decodeBody>) =>
  "bytes" in decoded ? decoded.bytes.toString() : decoded;

describe("the charset of a body", () => {
  it("is the one its Content-Type declares, in any spelling, and UTF-8 when none", () => {
    const charset = (contentType?: string) =>
      declaredCharset(contentType === undefined ? {} : { "content-type": contentType });
    expect(charset()).toBe("utf-8");
    expect(charset("application/json")).toBe("utf-8");
    expect(charset("application/json; charset=ISO-8859-1")).toBe("iso-8859-1");
    expect(charset('application/json;Charset="windows-1252"; q=1')).toBe("windows-1252");
    expect(charset("text/html; charset=")).toBe("utf-8");
  });

  it("decodes Latin-1 and UTF-8 to the same text, a byte-order mark skipped", () => {
    const text = '{"name": "Türkiye", "artist": "Zoë Vale"}';
    expect(bytesOf(decodeBody(Buffer.from(text, "latin1"), "iso-8859-1"))).toBe(text);
    expect(bytesOf(decodeBody(Buffer.from(text, "latin1"), "latin1"))).toBe(text);
    expect(bytesOf(decodeBody(Buffer.from(text), "utf-8"))).toBe(text);
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    expect(bytesOf(decodeBody(marked, "utf-8"))).toBe(text);
    expect(bytesOf(decodeBody(Buffer.from(`\ufeff${text}`, "utf16le"), "utf-16le"))).toBe(text);
  });

  it("refuses a sequence not valid in it, and a charset no decoder knows, never replacing", () => {
    const garbled = Buffer.concat([
      Buffer.from('{"a": "x'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from('y"}'),
    ]);
    expect(decodeBody(garbled, "utf-8")).toEqual({ charset: "utf-8", problem: "invalid" });
    expect(decodeBody(Buffer.from("{}"), "klingon-8")).toEqual({
      charset: "klingon-8",
      problem: "unknown",
    });
  });
});

describe("an upstream serving another charset", () => {
  let upstream: Upstream;

  beforeAll(async () => {
    upstream = await startUpstream("body_charset", { etl: { max_retries: 2 } });
  });

  afterAll(() => upstream.close());

  const territories = () => upstream.context.api.send(getTerritoriesOperation, { key: "all" });

  it("stores what a UTF-8 one stores when it declares ISO-8859-1", async () => {
    upstream.sandbox.setKnobs({ shapes: { charset: "utf-8" } });
    const utf8 = await territories();
    expect(utf8.bytes.toString()).toContain("Türkiye");
    upstream.sandbox.setKnobs({ shapes: { charset: "iso-8859-1" } });
    const latin1 = await territories();
    expect(latin1.bytes.equals(utf8.bytes)).toBe(true);
  });

  it("fails a body not valid in the charset it declares, retried, naming the charset", async () => {
    upstream.sandbox.setKnobs({ shapes: { charset: "mislabelled" } });
    upstream.sandbox.resetStats();
    const error = await territories().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyCharsetError);
    expect((error as Error).message).toContain(
      "HTTP 200 with a body that is not valid utf-8 (the charset its Content-Type declares",
    );
    expect(upstream.sandbox.stats().requests).toBe(3);
  });
});
