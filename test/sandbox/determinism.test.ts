import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../sandbox/index.js";
import { call } from "./call.js";

const OPTIONS: SandboxOptions = { seed: 42, today: "2026-02-15" };

/** Requests across every route family, as raw response texts. */
async function sample(sandbox: Sandbox): Promise<string[]> {
  const cm = sandbox.data.socialArtists()[0]?.cm_artist;
  const list = {
    selection_type: "asset",
    sale_type: "stream",
    start_date: "2026-01-01T00:00:00",
    end_date: "2026-01-30T00:00:00",
    size: 500,
  };
  const requests: [string, Parameters<typeof call>[2]][] = [
    ["/api/v1/getproductByupc/1?page_size=100", {}],
    ["/api/v1/getArtistByName/a?page_size=100", {}],
    ["/api/v1/getDsps/all", {}],
    ["/api/v1/getTrendsList", { body: list }],
    ["/api/v1/getTrendsChart", { body: list }],
    [
      "/api/v1/getTrendsTotal",
      { body: { ...list, start_date: "2026-01-01", end_date: "2026-01-30" } },
    ],
    [`/api/v1/artist-stats/stat/social_1?artist_id=${cm}&since=2025-06-01`, {}],
    [`/api/v1/artist-stats/social_3-audience-stats?artist_id=${cm}`, {}],
    [`/api/v1/artist-stats/editorial-playlists?artist_id=${cm}&limit=100`, {}],
    [`/api/v1/artist-stats/radio-airplays?artist_id=${cm}`, {}],
    ["/api/v1/artist-stats/charts?limit=200", {}],
    ["/api/v1/payouts", {}],
    ["/api/v1/incomes", {}],
    ["/api/v1/invoice", {}],
  ];
  const texts: string[] = [];
  for (const [path, options] of requests) {
    const result = await call(sandbox, path, options);
    expect(result.status, path).toBe(200);
    texts.push(result.text);
  }
  return texts;
}

describe("sandbox determinism", () => {
  const sandboxes: Sandbox[] = [];
  beforeAll(async () => {
    for (const options of [OPTIONS, OPTIONS, { ...OPTIONS, seed: 43 }]) {
      sandboxes.push(await startSandbox(options));
    }
  });
  afterAll(() => Promise.all(sandboxes.map((sandbox) => sandbox.close())));

  it("serves byte-identical data for the same seed and size", async () => {
    const [one, two] = sandboxes;
    if (!one || !two) throw new Error("sandboxes not started");
    expect(one.url).not.toBe(two.url);
    expect(await sample(one)).toEqual(await sample(two));
  });

  it("serves different data for another seed", async () => {
    const [one, , other] = sandboxes;
    if (!one || !other) throw new Error("sandboxes not started");
    const [a, b] = [await sample(one), await sample(other)];
    const same = a.filter((text, i) => text === b[i]);
    expect(same.length).toBeLessThan(3);
  });

  it("generates one day of trends without depending on the range asked", () => {
    const [one] = sandboxes;
    if (!one) throw new Error("sandbox not started");
    const day = one.data.trendItems("2026-01-10", "product", "stream");
    const list = one.data.trendList("2026-01-10", "2026-01-10", "product", "stream");
    expect(list.map((item) => item.count).sort()).toEqual(day.map((item) => item.count).sort());
    const short = one.data.statSeries(
      one.data.socialArtists()[0]?.cm_artist ?? 0,
      "social_1",
      "2026-01-10",
      "2026-01-12",
    );
    const long = one.data.statSeries(
      one.data.socialArtists()[0]?.cm_artist ?? 0,
      "social_1",
      "2025-06-01",
      "2026-01-12",
    );
    for (const [metric, points] of Object.entries(short.metrics)) {
      expect(long.metrics[metric]?.slice(-3)).toEqual(points);
    }
  });
});
