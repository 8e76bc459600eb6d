import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestTarget } from "../../src/http/request-target.js";
import { startClient } from "../helpers/upstream.js";
import { getArtistByNameOperation } from "../../src/streams/catalogue/artists.js";
import { getProductByUpcOperation } from "../../src/streams/catalogue/products.js";

/** Every request target as it arrived on the wire, before any parsing. */
const received: string[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push(request.url ?? "");
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ status: true, data: [] }));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe("a value in a request's path", () => {
  it.each([
    ["..", "%2E%2E"],
    [".", "%2E"],
    ["AC/DC", "AC%2FDC"],
    ["a?b#c", "a%3Fb%23c"],
    ["50% off", "50%25%20off"],
    ["..a", "..a"],
  ])("stays one segment, sent as it is: %j", async (name, sent) => {
    const client = await startClient("request_target", { url: `${url}/prefix/`, apiKey: "k" });
    try {
      received.length = 0;
      await client.context.api.send(getArtistByNameOperation, { name, page: 1, page_size: 10 });
      expect(received).toEqual([`/prefix/api/v1/getArtistByName/${sent}?page=1&page_size=10`]);
    } finally {
      await client.close();
    }
  });

  it("is the same for a UPC", async () => {
    const client = await startClient("request_target_upc", { url, apiKey: "k" });
    try {
      received.length = 0;
      await client.context.api.send(getProductByUpcOperation, { upc: ".." });
      expect(received).toEqual(["/api/v1/getproductByupc/%2E%2E"]);
    } finally {
      await client.close();
    }
  });
});

describe("requestTarget", () => {
  it("keeps a link's query as it came, and encodes added parameters as a form's", () => {
    expect(requestTarget("https://x.test/base/", "/a/b?c=d%20e&f=1")).toEqual({
      origin: "https://x.test",
      path: "/base/a/b?c=d%20e&f=1",
    });
    expect(requestTarget("https://x.test", "/a?c=1", { c: 2, d: "x y", e: undefined })).toEqual({
      origin: "https://x.test",
      path: "/a?c=2&d=x+y",
    });
  });
});
