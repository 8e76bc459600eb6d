import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_NAMES } from "../../sandbox/dataset/names.js";
import {
  type CatalogueArtist,
  type Product,
  type Sandbox,
  startSandbox,
} from "../../sandbox/index.js";
import { call, ok, wire } from "./call.js";

type Envelope = { page: number; page_size: number; total: number } & Record<string, unknown>;

/** Every page of a lookup, concatenated; stops at the first page shorter than page_size. */
async function allPages<T>(sandbox: Sandbox, path: string, key: string, pageSize: number) {
  const items: T[] = [];
  const totals = new Set<number>();
  for (let page = 0; ; page++) {
    const body = await ok<Envelope>(sandbox, `${path}?page=${page}&page_size=${pageSize}`);
    expect(body.page).toBe(page);
    expect(body.page_size).toBe(pageSize);
    totals.add(body.total);
    const rows = body[key] as T[];
    items.push(...rows);
    if (rows.length < pageSize) break;
  }
  expect(totals.size).toBe(1);
  return { items, total: [...totals][0] };
}

describe("sandbox catalogue", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ today: "2026-02-01" });
  });
  afterAll(() => sandbox.close());

  it("pages products whose UPC contains the searched value, and the pages add up to the dataset", async () => {
    const expected = sandbox.data.products().filter((product) => product.upc.includes("0"));
    expect(expected.length).toBeGreaterThan(25 * 2);
    const { items, total } = await allPages<Product>(
      sandbox,
      "/api/v1/getproductByupc/0",
      "product",
      25,
    );
    expect(total).toBe(expected.length);
    expect(items).toEqual(wire(expected));
    const first = await ok<{ search: string }>(sandbox, "/api/v1/getproductByupc/0");
    expect(first).toMatchObject({ page: 0, page_size: 25, search: "0" });
  });

  it("serves products with their assets in upstream shapes", async () => {
    const product = sandbox.data.products()[0];
    if (!product) throw new Error("no products");
    const body = await ok<{ total: number; product: Product[] }>(
      sandbox,
      `/api/v1/getproductByupc/${product.upc}`,
    );
    expect(body.total).toBe(1);
    const served = body.product[0];
    expect(served).toEqual(wire(product));
    expect(served?.upc).toMatch(/^\d{12,13}$/);
    expect(served?.assets.length).toBeGreaterThanOrEqual(1);
    expect(served?.assets.length).toBeLessThanOrEqual(12);
    for (const asset of served?.assets ?? []) {
      expect(Number.isInteger(asset.id)).toBe(true);
      expect(asset.isrc).toMatch(/^[A-Z]{2}[A-Z0-9]{3}\d{7}$/);
    }
  });

  it("keeps UPCs and ISRCs unique", () => {
    const products = sandbox.data.products();
    expect(new Set(products.map((product) => product.upc)).size).toBe(products.length);
    const assets = products.flatMap((product) => product.assets);
    expect(new Set(assets.map((asset) => asset.isrc)).size).toBe(assets.length);
    expect(new Set(assets.map((asset) => asset.id)).size).toBe(assets.length);
  });

  it("finds artists by case-insensitive substring and pages them", async () => {
    const expected = sandbox.data
      .artists()
      .filter((artist) => artist.name.toLowerCase().includes("e"));
    const { items, total } = await allPages<CatalogueArtist>(
      sandbox,
      "/api/v1/getArtistByName/E",
      "artist",
      10,
    );
    expect(total).toBe(expected.length);
    expect(items).toEqual(wire(expected));
    for (const artist of items) {
      expect(artist.proprietary_id === null || typeof artist.proprietary_id === "string").toBe(
        true,
      );
      expect(artist.photo.modificationTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      expect(typeof artist.photo.has_uploaded).toBe("boolean");
    }
  });

  it("carries hostile names, and finds them by their own text", async () => {
    const names = sandbox.data.artists().map((artist) => artist.name);
    const hostile = names.filter((name) => HOSTILE_NAMES.includes(name));
    expect(hostile.length).toBeGreaterThanOrEqual(5);
    expect(names).toContain("Robert'); DROP TABLE x;--");
    for (const name of hostile) {
      const body = await ok<{ artist: CatalogueArtist[] }>(
        sandbox,
        `/api/v1/getArtistByName/${encodeURIComponent(name)}?page_size=100`,
      );
      expect(body.artist.map((artist) => artist.name)).toContain(name);
    }
  });

  it("refuses a page_size above 100 and a negative page", async () => {
    const big = await call(sandbox, "/api/v1/getArtistByName/a?page_size=101");
    expect(big.status).toBe(422);
    expect(big.json).toMatchObject({ errors: { page_size: [expect.any(String)] } });
    const negative = await call(sandbox, "/api/v1/getproductByupc/1?page=-1");
    expect(negative.status).toBe(422);
    expect(negative.json).toMatchObject({
      message: expect.any(String),
      errors: { page: [expect.any(String)] },
    });
  });

  it("answers territories as a bare array; 'all' lists every one, a key filters name or code", async () => {
    const all = await ok<unknown[]>(sandbox, "/api/v1/getTerritories/all");
    expect(all).toEqual(wire(sandbox.data.territories()));
    expect(all.length).toBeGreaterThanOrEqual(38);
    expect(all).toContainEqual({ id: "FR", name: "France", code: "FR" });
    const byCode = await ok<{ code: string }[]>(sandbox, "/api/v1/getTerritories/de");
    expect(byCode.map((territory) => territory.code)).toContain("DE");
    const byName = await ok<{ code: string }[]>(sandbox, "/api/v1/getTerritories/KINGDOM");
    expect(byName).toEqual([{ id: "GB", name: "United Kingdom", code: "GB" }]);
  });

  it("answers DSPs as a bare array with nullable code and state", async () => {
    const all = await ok<{ id: number; name: string; code: string | null; state: string | null }[]>(
      sandbox,
      "/api/v1/getDsps/all",
    );
    expect(all).toEqual(wire(sandbox.data.dsps()));
    expect(all).toHaveLength(30);
    expect(all.some((dsp) => dsp.code === null)).toBe(true);
    expect(all.some((dsp) => typeof dsp.code === "string")).toBe(true);
    expect(all.some((dsp) => dsp.state === null)).toBe(true);
    const first = all[0];
    if (!first) throw new Error("no DSPs");
    const filtered = await ok<{ id: number }[]>(
      sandbox,
      `/api/v1/getDsps/${encodeURIComponent(first.name.toUpperCase())}`,
    );
    expect(filtered.map((dsp) => dsp.id)).toContain(first.id);
  });
});
